#!/usr/bin/env python3
"""A stand-in OpenAI-compatible chat server on 127.0.0.1 for e2e tests.

Usage: stub-openai.py FOLDER ANSWER...
Answers the Nth POST with the Nth ANSWER (the last one again after that) as a
streamed chat completion (SSE), saves each request body as FOLDER/requestN.json,
writes its port to FOLDER/port, and exits after len(ANSWER) requests or 20 s idle.
With STUB_OPENAI_USAGE=IN,OUT in the environment the stream ends with a usage
chunk (as OpenAI sends for stream_options.include_usage).
"""
import http.server, json, os, sys

folder, answers = sys.argv[1], sys.argv[2:]
os.makedirs(folder, exist_ok=True)


class Handler(http.server.BaseHTTPRequestHandler):
    count = 0

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with open(os.path.join(folder, f"request{Handler.count}.json"), "wb") as f:
            f.write(body)
        text = answers[min(Handler.count, len(answers) - 1)]
        Handler.count += 1
        chunks = [{"id": "c", "object": "chat.completion.chunk",
                   "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]},
                  {"id": "c", "object": "chat.completion.chunk",
                   "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
        if os.environ.get("STUB_OPENAI_USAGE"):
            prompt, completion = (int(n) for n in os.environ["STUB_OPENAI_USAGE"].split(","))
            chunks.append({"id": "c", "object": "chat.completion.chunk", "choices": [],
                           "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                                     "total_tokens": prompt + completion}})
        out = "".join("data: " + json.dumps(c) + "\n\n" for c in chunks) + "data: [DONE]\n\n"
        data = out.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
server.timeout = 20
with open(os.path.join(folder, "port.tmp"), "w") as f:
    f.write(str(server.server_port))
os.rename(os.path.join(folder, "port.tmp"), os.path.join(folder, "port"))
for _ in answers:
    server.handle_request()
