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
  - consecutive chunks of a book overlap by at most OVERLAP model tokens (counted
    by ib-chunk --tokenize), at least half of it for 95% of them, median within 25%.
Prints a summary; exits 1 on any failure."""
import json, statistics, subprocess, sys

records = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
recount = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
max_tokens, overlap_setting = int(sys.argv[3]), int(sys.argv[4])
pages, chunks = {}, []
for r in records:
    if r["type"] == "page":
        pages.setdefault(r["book_id"], {})[r["page"]] = r["text"]
    elif r["type"] == "chunk":
        chunks.append(r)

def page_span(book, start, end):
    """The text from (page, offset) start to end, pages joined by a newline."""
    (sp, so), (ep, eo) = start, end
    if sp == ep:
        return book[sp][so:eo]
    return "\n".join([book[sp][so:]] + [book[p] for p in range(sp + 1, ep)] + [book[ep][:eo]])

failures = []
def fail(chunk, message):
    failures.append(f"chunk {chunk['book_id']}:{chunk['index']}: {message}")

overlaps = []
previous = None
for i, c in enumerate(chunks):
    book = pages[c["book_id"]]
    sp, ep = c["start_page"], c["end_page"]
    span = page_span(book, (sp, c["start_offset"]), (ep, c["end_offset"]))
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
    # Overlap: the page text from this chunk's start to the previous chunk's end
    # (by offsets: repeated text such as a line of dashes fools string matching).
    if previous and previous["book_id"] == c["book_id"]:
        start, end = (sp, c["start_offset"]), (previous["end_page"], previous["end_offset"])
        overlaps.append(page_span(book, start, end) if start < end else "")
    previous = c

if overlaps and overlap_setting > 0:
    # Each overlap in model tokens, counted by ib-chunk --tokenize itself.
    counted = subprocess.run(["ib-chunk", "--tokenize"], input="".join(json.dumps({"text": o}) + "\n" for o in overlaps),
                             capture_output=True, text=True, check=True).stdout.splitlines()
    tokens = [len(json.loads(line)["input_ids"]) - 2 for line in counted]
    median_tokens = statistics.median(tokens)
    over = [t for t in tokens if t > overlap_setting]
    if over:
        failures.append(f"{len(over)} overlaps exceed the setting of {overlap_setting} tokens (largest {max(over)})")
    short = sum(1 for t in tokens if t < overlap_setting // 2)
    if short > 0.05 * len(tokens):
        failures.append(f"{short} of {len(tokens)} overlaps are under half the setting")
    if abs(median_tokens - overlap_setting) > 0.25 * overlap_setting:
        failures.append(f"median overlap {median_tokens:.1f} tokens, setting {overlap_setting}")
else:
    median_tokens = 0.0
print(f"check-chunks: {len(chunks)} chunks, max {max((len(r['input_ids']) for r in recount), default=0)} tokens "
      f"(limit {max_tokens}), median overlap {median_tokens:.1f} tokens (setting {overlap_setting}), "
      f"{len(failures)} failures")
for f in failures[:20]:
    print("  " + f)
sys.exit(1 if failures or not chunks else 0)
