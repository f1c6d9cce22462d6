#!/usr/bin/env python3
"""ib-mcp driven by the official MCP Python SDK as the client (scripts/e2e/mcp.sh).

    mcp-client.py modern|legacy DB HOLMES_ID VALLEY_IDS...

modern: the SDK's default mode (a server/discover probe, then the 2026-07-28
per-request envelope) and a session pinned to 2026-07-28; legacy: the
initialize handshake at 2025-11-25, older versions offered by hand, and a
server killed mid-write. Each runs the same session on its own copy of the library.

The library DB holds the sample book (HOLMES_ID, with vectors) and two books
whose titles are alike (VALLEY_IDS). Checks, each printed as FAIL: when it fails:
  - connect in either era, and refuse a request of the other era on the
    connection; an unsupported version is -32022 naming the supported ones;
  - list tools and resources, call every tool, read every resource, and compare
    with ib-search, ib-index show and ib-capture status on the same library;
  - malformed JSON, a non-request, unknown methods and tools, wrong argument
    types and an ambiguous book on the same connection: each an error, the
    connection still usable, nothing written;
  - no spoiler: with a reading position set no tool returns text past it
    unless all_pages is set;
  - a server killed in the middle of writes leaves the library sound.
"""
import json
import os
import sqlite3
import subprocess
import sys
from contextlib import asynccontextmanager

import warnings

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

warnings.filterwarnings("ignore", message="ping is removed")  # removed in 2026-07-28 only; this is a handshake-era session
MODE, DB, HOLMES, VALLEYS = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "0"}}
ENV = dict(os.environ)
PARAMS = StdioServerParameters(command="ib-mcp", args=["--db", DB], env=ENV)
failures = []


def check(name, ok, detail=""):
    if not ok:
        failures.append(name)
        print(f"FAIL: {name}" + (f": {str(detail)[:1500]}" if detail != "" else ""))


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True, env=ENV)


def jsonl(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def counts():
    with sqlite3.connect(DB) as db:
        return tuple(db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                     for t in ("quotes", "notes", "progress_events", "reading_plans"))


def current_page(book):
    with sqlite3.connect(DB) as db:
        return db.execute("SELECT current_page FROM books WHERE id = ?", (book,)).fetchone()[0]


# --- a transport that also lets raw lines through, and sets apart the answers to them

class Raw:
    """Goes down the SDK's stdio writer as the line itself (it calls message.model_dump_json)."""
    def __init__(self, text):
        self.message = self
        self.text = text

    def model_dump_json(self, **_):
        return self.text


class Tap:
    def __init__(self):
        self.write = None
        self.answers = None  # receive side of the raw answers

    async def raw(self, text):
        """Sends one raw line; returns the server's answer to it (id null or >= 9000)."""
        await self.write.send(Raw(text))
        with anyio.fail_after(10):
            return await self.answers.receive()


@asynccontextmanager
async def tapped(tap):
    async with stdio_client(PARAMS) as (read, write):
        to_session, session_read = anyio.create_memory_object_stream(100)
        to_tap, tap.answers = anyio.create_memory_object_stream(100)
        tap.write = write

        async def pump():
            async with to_session, to_tap:
                async for item in read:
                    if isinstance(item, SessionMessage):
                        m = item.message.model_dump(by_alias=True, exclude_none=False)
                        ident = m.get("id")
                        if ident is None and "method" not in m or isinstance(ident, int) and ident >= 9000:
                            await to_tap.send(m)
                            continue
                    await to_session.send(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(pump)
            yield session_read, write
            tg.cancel_scope.cancel()


def structured(result):
    return result.structured_content or {}


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


# --- the checks

async def main_session():
    tap = Tap()
    # modern: mode="auto", server/discover first, then the per-request envelope; legacy: initialize.
    async with Client(tapped(tap), mode="auto" if MODE == "modern" else "legacy") as client:
        want = "2026-07-28" if MODE == "modern" else "2025-11-25"
        check(f"{MODE}: protocol {want}", client.protocol_version == want, client.protocol_version)
        check("server info", client.server_info is not None and client.server_info.name == "ib-mcp", client.server_info)
        check("instructions", "search_library" in (client.instructions or ""), client.instructions)
        if MODE == "legacy":
            await client.send_ping()
            answer = await tap.raw(json.dumps({"jsonrpc": "2.0", "id": 9010, "method": "tools/list", "params": {"_meta": ENVELOPE}}))
            check("a 2026-07-28 request on a handshake connection: invalid request", answer["error"]["code"] == -32600, answer)
        else:
            bad = dict(ENVELOPE, **{"io.modelcontextprotocol/protocolVersion": "2030-01-01"})
            answer = await tap.raw(json.dumps({"jsonrpc": "2.0", "id": 9010, "method": "tools/list", "params": {"_meta": bad}}))
            check("an unsupported modern version: -32022 naming 2026-07-28",
                  answer["error"]["code"] == -32022 and answer["error"]["data"]["supported"] == ["2026-07-28"], answer)
            answer = await tap.raw(json.dumps({"jsonrpc": "2.0", "id": 9011, "method": "tools/list",
                                               "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}))
            check("an envelope without client capabilities: invalid params", answer["error"]["code"] == -32602, answer)
            answer = await tap.raw(json.dumps({"jsonrpc": "2.0", "id": 9012, "method": "initialize",
                                               "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}}))
            check("initialize on a 2026-07-28 connection: -32022", answer["error"]["code"] == -32022, answer)
            answer = await tap.raw(json.dumps({"jsonrpc": "2.0", "id": 9014, "method": "tools/list", "params": {}}))
            check("a request without the envelope on a 2026-07-28 connection: invalid params", answer["error"]["code"] == -32602, answer)
            answer = await tap.raw(json.dumps({"jsonrpc": "2.0", "id": 9013, "method": "resources/list", "params": {"_meta": ENVELOPE}}))
            result = answer.get("result", {})
            check("a 2026-07-28 result: resultType, cacheScope, ttlMs, serverInfo in _meta",
                  result.get("resultType") == "complete" and result.get("cacheScope") == "private" and result.get("ttlMs") == 0
                  and result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "ib-mcp", answer)

        tools = {t.name: t for t in (await client.list_tools()).tools}
        expected = {"search_library", "get_passage", "list_books", "book_status", "continue_reading", "capture",
                    "add_quote", "add_note", "log_progress", "set_plan", "summarize"}
        check("tools/list names every tool", set(tools) == expected, sorted(tools))
        check("every tool has input and output schemas",
              all(t.input_schema.get("type") == "object" and (t.output_schema or {}).get("type") == "object" for t in tools.values()))

        resources = [str(r.uri) for r in (await client.list_resources()).resources]
        check("resources/list: status and every book",
              set(resources) == {"ib://status", f"ib://book/{HOLMES}"} | {f"ib://book/{v}" for v in VALLEYS}, resources)
        templates = (await client.list_resource_templates()).resource_templates
        check("resource template ib://book/{id}", [t.uri_template for t in templates] == ["ib://book/{id}"], templates)

        # list_books and book_status against ib-index show
        books = structured(await client.call_tool("list_books", {}))["books"]
        def shown_book(book_id):
            # ib-index show's JSON is the book and its sections (the same piped or --json); the tools give the book.
            book = json.loads(run("ib-index", "--db", DB, "show", book_id).stdout)
            book.pop("sections", None)
            return book
        for b in books:
            shown = shown_book(b["id"])
            check(f"list_books {b['id'][:8]} = ib-index show", b == shown, (b, shown))
        status = structured(await client.call_tool("book_status", {"book": "Sherlock Holmes"}))
        shown = shown_book(HOLMES)
        check("book_status = ib-index show", status["book"] == shown and status["searchable"], (status, shown))

        # every resource, against ib-index show and ib-capture status
        for uri in resources:
            contents = (await client.read_resource(uri)).contents
            body = json.loads(contents[0].text)
            if uri == "ib://status":
                report = json.loads(run("ib-capture", "--db", DB, "status", "--json").stdout)
                check("ib://status = ib-capture status --json", body == report, (body, report))
            else:
                book_id = uri.rsplit("/", 1)[1]
                shown = shown_book(book_id)
                toc = body.pop("contents")
                check(f"{uri} = ib-index show + contents", body == shown, (body, shown))
                if book_id == HOLMES:
                    check("the sample book has a table of contents with page ranges",
                          len(toc) >= 2 and all(s["start_page"] <= s["end_page"] for s in toc)
                          and all(a["end_page"] < b["start_page"] for a, b in zip(toc, toc[1:])), toc)

        # search_library against ib-search, with no position set, in every mode
        for mode in ("hybrid", "text", "vector"):
            for query in ("the speckled band was a snake", "a blue carbuncle in the crop of a goose"):
                mine = structured(await client.call_tool("search_library", {"query": query, "k": 5, "mode": mode, "book": "Sherlock"}))
                theirs = jsonl(run("ib-search", "--db", DB, "--json", "-k", "5", "--mode", mode, "--book", "Sherlock", query).stdout)
                check(f"search_library = ib-search ({mode}: {query})", mine["results"] == theirs,
                      ([r["chunk_id"] for r in mine["results"]], [r["chunk_id"] for r in theirs]))

        # a query about nothing in the library: no passage, and why (ib-search's rule); min_score as --min-score
        off = "bitcoin gpu blockchain cryptocurrency"   # no word of it in the books ("mining" would match "mine")
        r = structured(await client.call_tool("search_library", {"query": off}))
        check("search_library: nothing about the query, no passage and a warning, as ib-search shows none",
              r["results"] == [] == jsonl(run("ib-search", "--db", DB, "--json", off).stdout)
              and any("far in meaning" in w for w in r["warnings"]), r)
        lifted = structured(await client.call_tool("search_library", {"query": off, "min_score": -1000000}))
        check("search_library: min_score -1000000 shows what ib-search --min-score -1000000 shows",
              lifted["results"] == jsonl(run("ib-search", "--db", DB, "--json", "--min-score", "-1000000", off).stdout)
              and lifted["results"] != [], [x["chunk_id"] for x in lifted["results"]])
        high = structured(await client.call_tool("search_library", {"query": "the speckled band", "min_score": 1000000}))
        check("search_library: min_score above every score, no passage and a warning",
              high["results"] == [] and any("min_score" in w for w in high["warnings"]), high)

        # the same connection: raw bad lines, unknown methods and tools, wrong types, ambiguity
        before = counts()
        answer = await tap.raw('{"jsonrpc": "2.0", "id": 9001, "method": ')
        check("malformed JSON: parse error, id null", answer.get("id") is None and answer["error"]["code"] == -32700, answer)
        answer = await tap.raw('{"jsonrpc": "2.0", "id": 9002}')
        check("a message without a method: invalid request", answer.get("id") == 9002 and answer["error"]["code"] == -32600, answer)
        answer = await tap.raw('[{"jsonrpc": "2.0", "id": 9003, "method": "ping"}]')
        check("a batch: invalid request", answer["error"]["code"] == -32600, answer)
        params = {"_meta": ENVELOPE} if MODE == "modern" else {}
        answer = await tap.raw(json.dumps({"jsonrpc": "2.0", "id": 9004, "method": "books/burn", "params": params}))
        check("an unknown method: method not found", answer.get("id") == 9004 and answer["error"]["code"] == -32601, answer)
        try:
            await client.call_tool("burn_books", {})
            check("an unknown tool is an error", False)
        except MCPError as e:
            check("an unknown tool: invalid params naming it", e.code == -32602 and "burn_books" in str(e), e)
        for name, args, says in [
            ("search_library", {"query": 42}, "query: expected string"),
            ("search_library", {"query": "x", "k": "many"}, "k: expected integer"),
            ("add_quote", {"text": ["not", "a", "string"]}, "text: expected string"),
            ("log_progress", {"page": "twelve"}, "page: expected integer"),
            ("get_passage", {"chunk_id": HOLMES + ":0", "context": 99}, "context: must be at most 5"),
            ("set_plan", {"books": "Sherlock", "due": "2027-01-31"}, "books: expected array"),
        ]:
            r = await client.call_tool(name, args)
            check(f"wrong argument type ({name} {args}) is a tool error", r.is_error and says in text_of(r), text_of(r))
        for name, args in [("add_quote", {"text": "Fear is the valley", "book": "Valley", "page": 1}),
                           ("capture", {"line": 'Quote p. 1 of Valley: "Fear is the valley"'}),
                           ("capture", {"line": "on page 2 of Valley"}),
                           ("log_progress", {"book": "Valley", "page": 1}),
                           ("set_plan", {"books": ["Valley"], "due": "2027-01-31"}),
                           ("search_library", {"query": "valley", "book": "Valley"})]:
            r = await client.call_tool(name, args)
            candidates = [c["id"] for c in structured(r).get("candidates", [])]
            check(f"ambiguous book ({name}): a tool error with the candidates", r.is_error and sorted(candidates) == sorted(VALLEYS),
                  (text_of(r), structured(r)))
        check("errors wrote nothing", counts() == before, (counts(), before))
        check("the connection is usable after the errors",
              len(structured(await client.call_tool("list_books", {}))["books"]) == 3)

        # writes: the typed forms and a line, then continue_reading and status
        r = await client.call_tool("capture", {"line": "Reading The Adventures of Sherlock Holmes"})
        check("capture: a book being read", structured(r).get("type") == "book" and structured(r).get("id") == HOLMES, text_of(r))
        r = await client.call_tool("log_progress", {"page": 40})
        check("log_progress on the current book", structured(r).get("page") == 40 and current_page(HOLMES) == 40, text_of(r))
        r = await client.call_tool("add_quote", {"text": "You see, but you do not observe.", "page": 12, "tags": ["holmes"]})
        check("add_quote", structured(r).get("type") == "quote" and structured(r).get("book_id") == HOLMES, text_of(r))
        r = await client.call_tool("add_note", {"text": "Why does he keep cocaine?", "question": True, "page": 20})
        check("add_note (a question)", structured(r).get("type") == "question", text_of(r))
        r = await client.call_tool("capture", {"line": "读了10页"})
        check("capture in Chinese: pages read", structured(r).get("page") == 50 and structured(r).get("pages_read") == 10, text_of(r))
        r = await client.call_tool("add_quote", {"text": "Fear is the valley", "book": VALLEYS[0], "page": 1})
        check("the second step of a disambiguation: the id", structured(r).get("book_id") == VALLEYS[0], text_of(r))
        r = await client.call_tool("capture", {"line": "Reading The Adventures of Sherlock Holmes"})
        r = await client.call_tool("set_plan", {"books": ["Sherlock"], "due": "2027-01-31"})
        check("set_plan", structured(r).get("type") == "plan" and structured(r).get("pages_per_day", 0) > 0, text_of(r))
        after = counts()
        check("the writes are in the library", after == (before[0] + 2, before[1] + 1, before[2] + 3, before[3] + 1), (before, after))
        report = json.loads(run("ib-capture", "--db", DB, "status", "--json").stdout)
        resource = json.loads((await client.read_resource("ib://status")).contents[0].text)
        check("ib://status = ib-capture status --json after the writes", resource == report, (resource, report))
        cont = structured(await client.call_tool("continue_reading", {}))
        # Page 40 was the first position given (where the reader is, 0 pages read); then 10 pages read.
        check("continue_reading: book, page, today's pages, streak, last quote",
              cont["book"]["id"] == HOLMES and cont["book"]["page"] == 50 and cont["pages_today"] == report["pages_today"] == 10
              and cont["streak_days"] == report["streak_days"] == 1 and cont["last_quote"]["text"] == "Fear is the valley"
              and cont["plans"] == report["plans"], cont)
        check("continue_reading resumes at the reading position", cont["resume"] and cont["resume"]["end_page"] <= 50, cont["resume"])

        # no spoiler at page 50
        for mode in ("hybrid", "text", "vector"):
            for query in ("the speckled band", "who is the man with the twisted lip", "the beryl coronet"):
                mine = structured(await client.call_tool("search_library", {"query": query, "k": 20, "mode": mode}))["results"]
                check(f"no spoiler: search_library ({mode}) stops at page 50", all(r["end_page"] <= 50 for r in mine if r["book_id"] == HOLMES),
                      [r["end_page"] for r in mine])
                theirs = jsonl(run("ib-search", "--db", DB, "--json", "-k", "20", "--mode", mode, query).stdout)
                check(f"search_library = ib-search at a reading position, up_to_page included ({mode}: {query})",
                      mine == theirs and all(r.get("up_to_page") == 50 for r in mine if r["book_id"] == HOLMES),
                      ([r.get("up_to_page") for r in mine], [r.get("up_to_page") for r in theirs]))
                lifted = structured(await client.call_tool("search_library", {"query": query, "k": 20, "mode": mode, "all_pages": True}))
                check(f"all_pages lifts the position ({mode}: {query})", any(r["end_page"] > 50 for r in lifted["results"]))
        with sqlite3.connect(DB) as db:
            later = db.execute("SELECT chunk_index FROM chunks WHERE book_id = ? AND end_page > 50 ORDER BY chunk_index LIMIT 1",
                               (HOLMES,)).fetchone()[0]
        r = await client.call_tool("get_passage", {"chunk_id": f"{HOLMES}:{later}"})
        check("no spoiler: get_passage past the position is refused", r.is_error and "past the reading position" in text_of(r), text_of(r))
        r = await client.call_tool("get_passage", {"chunk_id": f"{HOLMES}:{later - 1}", "context": 3})
        passages = structured(r)["passages"]
        check("no spoiler: get_passage's neighbours stop at the position",
              passages and all(p["end_page"] <= 50 for p in passages) and structured(r)["more_hidden"], passages)
        r = await client.call_tool("get_passage", {"chunk_id": f"{HOLMES}:{later}", "all_pages": True, "context": 1})
        check("get_passage with all_pages", not r.is_error and len(structured(r)["passages"]) == 3, text_of(r))
        s = structured(await client.call_tool("summarize", {"book": "Sherlock"}))
        check("no spoiler: summarize cites nothing past page 50, offline says so",
              s["citations"] and all(p <= 50 for c in s["citations"] for p in c["pages"]) and s["up_to_page"] <= 50
              and s["language_model"] is False and "No language model was used" in s["summary"], s)
        r = await client.call_tool("summarize", {"book": "Sherlock", "start_page": 40, "end_page": 80})
        check("no spoiler: summarize past the position is refused", r.is_error and "past the reading position" in text_of(r), text_of(r))
        r = await client.call_tool("book_status", {})
        check("book_status of the current book", structured(r)["page"] == 50 and structured(r)["book"]["id"] == HOLMES, text_of(r))


async def pinned_session():
    """mode="2026-07-28": no probe, every request in the envelope from the first."""
    async with Client(PARAMS, mode="2026-07-28") as client:
        check("pinned 2026-07-28", client.protocol_version == "2026-07-28", client.protocol_version)
        r = await client.call_tool("search_library", {"query": "Irene Adler", "k": 3})
        check("pinned 2026-07-28: a search", not r.is_error and len(structured(r)["results"]) == 3, text_of(r))
        body = json.loads((await client.read_resource(f"ib://book/{HOLMES}")).contents[0].text)
        check("pinned 2026-07-28: a book resource", body["id"] == HOLMES, body)


def older_versions():
    """The handshake by hand: each version offered is answered; older ones get no structured content."""
    lines = []
    for i, version in enumerate(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2099-01-01"]):
        lines.append({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "e2e", "version": "0"}}})
        lines.append({"jsonrpc": "2.0", "method": "notifications/initialized"})
        lines.append({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_books", "arguments": {}}})
        out = subprocess.run(["ib-mcp", "--db", DB], input="".join(json.dumps(l) + "\n" for l in lines[-3:]),
                             capture_output=True, text=True, env=ENV, timeout=60)
        answers = jsonl(out.stdout)
        want = version if version != "2099-01-01" else "2025-11-25"
        check(f"initialize offering {version} gets {want}", len(answers) == 2 and answers[0]["result"]["protocolVersion"] == want, out.stdout)
        structured_ok = ("structuredContent" in answers[1]["result"]) == (want >= "2025-06-18")
        check(f"structured content only from 2025-06-18 ({version})", structured_ok, answers[1])


def killed_mid_write():
    """Writes in a stream, the server killed with SIGKILL midway: the library stays sound."""
    before = counts()[0]
    calls = "".join(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                "params": {"name": "add_quote", "arguments": {"text": f"kill test {i}", "book": HOLMES, "page": 1}}}) + "\n"
                    for i in range(1, 401))
    p = subprocess.Popen(["ib-mcp", "--db", DB], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
    p.stdin.write(calls.encode())
    p.stdin.flush()
    answered = 0
    while answered < 50:
        if not p.stdout.readline():
            break
        answered += 1
    p.kill()
    p.wait()
    with sqlite3.connect(DB) as db:
        ok = db.execute("PRAGMA integrity_check").fetchone()[0]
        stored = db.execute("SELECT count(*) FROM quotes WHERE text LIKE 'kill test %'").fetchone()[0]
        db.execute("DELETE FROM quotes WHERE text LIKE 'kill test %'")
    check("killed mid-write: integrity_check ok", ok == "ok", ok)
    check("killed mid-write: every answered write is stored, whole quotes only",
          answered <= stored <= 400 and counts()[0] == before, (answered, stored))


async def main():
    await main_session()
    if MODE == "modern":
        await pinned_session()
    else:
        older_versions()
        killed_mid_write()


anyio.run(main)
print(f"mcp client ({MODE}): {len(failures)} failed")
sys.exit(1 if failures else 0)
