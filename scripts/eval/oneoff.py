"""A question set's references moved by one, the way a reader's memory slips.

Each question that names a day ("on 23 September", "October 5th"), a scene, a
chapter, a book or an act by number gets the first of these (in that order)
moved one up or down; which way is fixed by a hash of the question's id, so
every run asks the same questions. A move that would leave 1...28 (a day) or
go below 1 goes the other way. Questions naming none of them are left out:
the measure is how a search treats a reference that is one off, beside the
same questions as written.
"""
import hashlib
import re

MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
PATTERNS = [
    ("day", re.compile(rf"\b(\d{{1,2}})(st|nd|rd|th)?(\s+(?:of\s+)?(?:{MONTHS}))\b")),
    ("day", re.compile(rf"\b((?:{MONTHS})\s+)(\d{{1,2}})(st|nd|rd|th)?\b")),
    ("scene", re.compile(r"\b([Ss]cene\s+)([0-9]+|[ivxIVX]+)\b")),
    ("chapter", re.compile(r"\b([Cc]hapter\s+)([0-9]+|[IVXLC]+)\b")),
    ("book", re.compile(r"\b([Bb]ook\s+)([0-9]+|[IVXLC]+)\b")),
    ("act", re.compile(r"\b([Aa]ct\s+)([0-9]+|[IVX]+)\b")),
]
ROMAN = [(100, "C"), (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


def to_roman(n):
    out = ""
    for value, letters in ROMAN:
        while n >= value:
            out, n = out + letters, n - value
    return out


def from_roman(s):
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
    s = s.upper()
    return sum(-values[c] if i + 1 < len(s) and values[s[i + 1]] > values[c] else values[c] for i, c in enumerate(s))


def ordinal(n):
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10 if n not in (11, 12, 13) else 0, "th")


def moved(n, by, top):
    return n + by if 1 <= n + by <= top else n - by


def one_off(question):
    """The question with its reference moved by one and "one_off" saying which kind; None if it names none."""
    by = 1 if int(hashlib.md5(question["id"].encode()).hexdigest(), 16) % 2 else -1
    text = question["question"]
    for kind, pattern in PATTERNS:
        m = pattern.search(text)
        if not m:
            continue
        if kind == "day" and m.group(1)[0].isdigit():
            n = moved(int(m.group(1)), by, 28)
            new = f"{n}{ordinal(n) if m.group(2) else ''}{m.group(3)}"
        elif kind == "day":
            n = moved(int(m.group(2)), by, 28)
            new = f"{m.group(1)}{n}{ordinal(n) if m.group(3) else ''}"
        else:
            number = m.group(2)
            if number.isdigit():
                new_number = str(moved(int(number), by, 10_000))
            else:
                new_number = to_roman(moved(from_roman(number), by, 399))
                new_number = new_number.lower() if number.islower() else new_number
            new = m.group(1) + new_number
        return dict(question, question=text[:m.start()] + new + text[m.end():], one_off=kind)
    return None
