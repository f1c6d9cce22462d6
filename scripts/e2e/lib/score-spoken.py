#!/usr/bin/env python3
"""Scores ib-capture --audio on the spoken set, independently of ib-capture's code.

usage: score-spoken.py SET.jsonl RESULTS.tsv INDEX.tsv
RESULTS holds, per line of the set: n, exit status, rows stored (quotes + notes +
progress events + plans + books added, after minus before), the record ib-capture
printed (JSON, or empty), what it heard. INDEX is scripts/gen/spoken-audio's
(n, voice, effect, seconds). Rules as shared/fixtures/voice/README.md says: a
line is right when the stored record has the expected type, book, page, seconds,
text (lower case, letters, digits and apostrophes), tags and chapter; a `none`
line is right when nothing is stored; a wrong book is a record for another book
(or any record for a `none` line). Prints the score, all and held out, by voice
and effect, and each miss; writes the score as JSON to stdout's last line.
Beside the exact score (the gate), a second figure, labelled as such, counts a line
whose only fault is a few words of its text misheard (word error rate of the text at
most NEAR_WER): it says how much of the miss is the recogniser's words, not the grammar."""
import json, re, sys
from collections import defaultdict

lines = {o["n"]: o for o in (json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip())}
index = {}
for l in open(sys.argv[3], encoding="utf-8"):
    n, voice, effect, seconds = l.rstrip("\n").split("\t")
    index[int(n)] = (voice, effect)

def norm(s):
    return " ".join(re.sub(r"[^\w']+", " ", (s or "").lower().replace("’", "'")).split())

def wer(ref, hyp):
    """Word errors (substitutions, insertions, deletions) of hyp against ref, and ref's length."""
    r, h = norm(ref).split(), norm(hyp).split()
    d = list(range(len(h) + 1))
    for i in range(1, len(r) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(h) + 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (r[i - 1] != h[j - 1]))
    return d[len(h)], len(r)

def judge(exp, rc, rows, record):
    t = exp["type"]
    if t == "none":
        if record is not None or rows != 0:
            return "wrong_book", f"stored {record}"
        return "right", ""
    if record is None:
        return "wrong", f"nothing stored (exit {rc})"
    book = exp.get("book")
    book = "Meditations" if book == "current" else book
    got = record.get("book_title") or record.get("title")
    if t == "plan":
        titles = [b.get("title") for b in record.get("books", [])]
        if titles != exp["books"]:
            return "wrong_book", f"plan books {titles}"
    elif book is not None and got != book:
        return "wrong_book", f"book {got!r}, expected {book!r}"
    if record.get("type") != t:
        return "wrong", f"type {record.get('type')}"
    problems = []
    def same(key, got_value):
        if key in exp and exp[key] != got_value:
            problems.append(f"{key} {got_value!r}, expected {exp[key]!r}")
    if t in ("quote", "note", "question"):
        same("page", record.get("page"))
        if "text" in exp and norm(record.get("text")) != norm(exp["text"]):
            problems.append(f"text {record.get('text')!r}")
        same("chapter", record.get("chapter"))
        same("tags", record.get("tags"))
        if "tags" not in exp and record.get("tags"):
            problems.append(f"tags {record.get('tags')}")
    elif t == "progress":
        for key in ("page", "pages_read", "finished", "seconds"):
            if key in exp:
                same(key, record.get(key))
    elif t == "plan":
        same("due", record.get("due"))
        if "daily_pages" in exp and exp["daily_pages"] != record.get("pages_per_day"):
            problems.append(f"daily {record.get('pages_per_day')}")
    elif t == "book":
        same("status", record.get("status"))
    return ("wrong", "; ".join(problems)) if problems else ("right", "")

groups = defaultdict(lambda: [0, 0, 0])  # right, total, wrong books
NEAR_WER = 0.2
near = defaultdict(int)  # right, or wrong only by a text within NEAR_WER of the words said
fields_by = defaultdict(int)
fields_right = 0   # right but for the words of the text (and its tags): the recogniser's words
text_errors = text_words = 0
misses = []
for row in open(sys.argv[2], encoding="utf-8"):
    n, rc, rows, record, heard = row.rstrip("\n").split("\t")
    n, rc, rows = int(n), int(rc), int(rows)
    record = json.loads(record) if record else None
    line = lines[n]
    verdict, why = judge(line["expect"], rc, rows, record)
    if verdict == "right" or (verdict == "wrong" and why and all(p.startswith(("text ", "tags ")) for p in why.split("; "))):
        fields_right += 1
        fields_by["held out" if line["held_out"] else "tuning"] += 1
    if record is not None and "text" in line["expect"] and verdict != "wrong_book":
        e, n_words = wer(line["expect"]["text"], record.get("text", ""))
        text_errors += e; text_words += n_words
    voice, effect = index.get(n, ("?", "?"))
    text_only = verdict == "wrong" and why and all(p.startswith("text ") for p in why.split("; "))
    if verdict == "right" or (text_only and record is not None and "text" in line["expect"]
                              and wer(line["expect"]["text"], record.get("text", ""))[0] <= NEAR_WER * len(norm(line["expect"]["text"]).split())):
        for g in ["all", "held out" if line["held_out"] else "tuning"]:
            near[g] += 1
    for g in ["all", "held out" if line["held_out"] else "tuning", "voice " + voice, "effect " + effect]:
        groups[g][1] += 1
        groups[g][0] += verdict == "right"
        groups[g][2] += verdict == "wrong_book"
    if verdict != "right":
        misses.append(f"  {n:3d}{' (held out)' if line['held_out'] else ''} [{voice}, {effect}] {verdict}: {why}\n"
                      f"      said:  {line['said']}\n      heard: {heard}")
for g in ["all", "tuning", "held out"] + sorted(k for k in groups if k.startswith(("voice", "effect"))):
    if g in groups:
        r, t, w = groups[g]
        print(f"spoken set, {g}: {r}/{t} right ({100 * r / t:.0f}%), {w} wrong books")
print(f"spoken set, all: {fields_right}/{groups['all'][1]} stored with the right kind, book and page or time "
      f"(the text aside); word error rate of stored texts {text_errors / max(1, text_words):.3f}")
for g in ["tuning", "held out"]:
    if g in groups:
        print(f"spoken set, {g}: {fields_by[g]}/{groups[g][1]} stored with the right kind, book and page or time (the text aside)")
for g in ["all", "tuning", "held out"]:
    if g in groups:
        print(f"spoken set, {g}: {near[g]}/{groups[g][1]} right allowing a few misheard words in the text "
              f"(text word error rate at most {NEAR_WER}; not the gate, the exact figure above is)")
if misses:
    print("misses:")
    print("\n".join(misses))
r, t, w = groups["all"]
h = groups["held out"]
print(json.dumps({"fields_right": fields_right, "right": r, "total": t, "wrong_books": w, "held_out_right": h[0], "held_out_total": h[1],
                  "held_out_wrong_books": h[2], "right_near_text": near["all"], "held_out_right_near_text": near["held out"]}))
