#!/usr/bin/env python3
"""Regenerates shared/fixtures/minilm/tokens-extra.jsonl: texts (sample-book
lines and random strings over many scripts) with ids from the Hugging Face
`tokenizers` library and the model's own tokenizer.json, untruncated.
usage: python3 -m venv v && v/bin/pip install tokenizers && v/bin/python scripts/gen/tokens-extra.py BOOKS_DIR MODEL_DIR"""
import json, random, sys
from tokenizers import Tokenizer

books, model = sys.argv[1], sys.argv[2]
tok = Tokenizer.from_file(model + "/tokenizer.json")
tok.no_truncation(); tok.no_padding()
texts = []
for f in ["sherlock.txt", "devils-dictionary.txt", "sherlock.md"]:
    lines = [l for l in open(f"{books}/{f}", encoding="utf-8").read().split("\n") if l.strip()]
    texts += random.Random(1).sample(lines, 300)
rng = random.Random(7)
ranges = [(0x20, 0x7e), (0xa0, 0x24f), (0x370, 0x3ff), (0x400, 0x4ff), (0x590, 0x6ff), (0x900, 0x97f), (0xe00, 0xe7f),
          (0x1100, 0x11ff), (0x2000, 0x206f), (0x2100, 0x22ff), (0x3000, 0x30ff), (0x4e00, 0x4f00), (0xac00, 0xad00),
          (0xf900, 0xfaff), (0xff00, 0xffef), (0x1f300, 0x1f6ff), (0x1d400, 0x1d7ff), (0xfe00, 0xfe0f), (0x200b, 0x200f),
          (0xe000, 0xe010), (0x10000, 0x10100), (0x1e00, 0x1eff), (0x300, 0x36f)]
for n in range(1500):
    s = ""
    for k in range(rng.randint(1, 40)):
        a, b = rng.choice(ranges); s += chr(rng.randint(a, b))
        if rng.random() < 0.2: s += " "
    texts.append(s)
texts += ["[CLS] hello [SEP]", "a[MASK]b", "[cls]", "[UNK][PAD]", "\u0130stanbul", "ﬁne ﬃ", "Ａｂｃ", "ß ẞ", "ǅ ǈ", "Σίσυφος",
          "ΣΑΣ", "\u00ad soft\u00adhyphen", "x\u0085y", "a\u2028b", "\ufeff", "\x00a\x00", "\ufffd"]
for t in texts:
    print(json.dumps({"text": t, "input_ids": tok.encode(t).ids}, ensure_ascii=False))
