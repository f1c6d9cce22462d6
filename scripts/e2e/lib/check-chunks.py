#!/usr/bin/env python3
"""Checks ib-chunk output against its pages, independently of ib-chunk's code.

usage: check-chunks.py RECORDS.jsonl RECOUNT.jsonl MAX_TOKENS OVERLAP
RECORDS holds book, page and chunk records; RECOUNT holds `ib-chunk --tokenize`
output for every chunk's text, in chunk order (a fresh tokenisation of the
whole text, so the chunker's additive counting is checked too).
For every chunk:
  - its text is exactly its pages' span named by its offsets (pages joined by "\\n");
  - start_page/end_page are the pages of its first and last characters;
  - it fits the model: the recount, [CLS] and [SEP] included, <= MAX_TOKENS,
    and equals token_count;
  - consecutive chunks of a book overlap by about OVERLAP tokens (median within 40%).
Prints a summary; exits 1 on any failure."""
import json, statistics, sys

records = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
recount = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
max_tokens, overlap_setting = int(sys.argv[3]), int(sys.argv[4])
pages, chunks = {}, []
for r in records:
    if r["type"] == "page":
        pages.setdefault(r["book_id"], {})[r["page"]] = r["text"]
    elif r["type"] == "chunk":
        chunks.append(r)

failures = []
def fail(chunk, message):
    failures.append(f"chunk {chunk['book_id']}:{chunk['index']}: {message}")

overlaps = []
previous = None
for i, c in enumerate(chunks):
    book = pages[c["book_id"]]
    sp, ep = c["start_page"], c["end_page"]
    if sp == ep:
        span = book[sp][c["start_offset"]:c["end_offset"]]
    else:
        parts = [book[sp][c["start_offset"]:]] + [book[p] for p in range(sp + 1, ep)] + [book[ep][:c["end_offset"]]]
        span = "\n".join(parts)
    if span != c["text"]:
        fail(c, "text differs from its pages' span")
    if not c["text"] or c["text"][0].isspace() or c["text"][-1].isspace():
        fail(c, "text starts or ends with whitespace")
    ids = recount[i]["input_ids"]
    if recount[i]["text"] != c["text"]:
        fail(c, "recount is out of step")
    if len(ids) > max_tokens:
        fail(c, f"{len(ids)} tokens exceed the model's {max_tokens}")
    if len(ids) != c["token_count"]:
        fail(c, f"token_count {c['token_count']} but the text makes {len(ids)}")
    # Overlap: the longest suffix of the previous chunk that starts this one.
    if previous and previous["book_id"] == c["book_id"]:
        prev_text, text = previous["text"], c["text"]
        shared = 0
        for k in range(min(len(prev_text), len(text)), 0, -1):
            if prev_text.endswith(text[:k]):
                shared = k
                break
        overlaps.append(shared)
    previous = c

chars_per_token = sum(len(c["text"]) for c in chunks) / max(1, sum(c["token_count"] - 2 for c in chunks))
if overlaps and overlap_setting > 0:
    median_tokens = statistics.median(overlaps) / chars_per_token
    if abs(median_tokens - overlap_setting) > 0.4 * overlap_setting:
        failures.append(f"median overlap {median_tokens:.1f} tokens, setting {overlap_setting}")
else:
    median_tokens = 0.0
print(f"check-chunks: {len(chunks)} chunks, max {max((len(r['input_ids']) for r in recount), default=0)} tokens "
      f"(limit {max_tokens}), median overlap {median_tokens:.1f} tokens (setting {overlap_setting}), "
      f"{len(failures)} failures")
for f in failures[:20]:
    print("  " + f)
sys.exit(1 if failures or not chunks else 0)
