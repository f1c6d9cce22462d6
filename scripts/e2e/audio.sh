#!/usr/bin/env bash
# Audio books end to end (ib-parse on audio, transcribed by Whisper):
#  - a three-chapter M4B spoken by Festival (text2wave) with ;FFMETADATA1 chapters and
#    tags goes through ib-parse | ib-chunk | ib-embed | ib-index; ib-search for a phrase
#    of chapter 2 finds a passage whose time lies inside chapter 2 and whose section is
#    chapter 2's; pages carry start_time/end_time and clock labels; the title and
#    author come from the tags;
#  - the same book as an MP3 with ID3 CHAP frames has the same sections;
#  - the same speech as MP3, Opus, FLAC and WAV each parses to its words, and on stdin;
#  - bad audio (empty, truncated, not audio, 100 channels, a hostile container, an hour
#    of silence): exit 1, one stderr line naming the file, no records, nothing in the
#    library, peak RSS < 400 MB.
# Needs ffmpeg and Festival (scripts/install-deps), the Whisper model
# (scripts/fetch-model whisper) and the embedding model; skips with a line without them.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
skip() { echo "audio: skipped ($*)"; exit 0; }
export IB_DB="$tmp/library.db"

for tool in ffmpeg ffprobe text2wave; do
  command -v "$tool" > /dev/null || skip "$tool is not installed: scripts/install-deps"
done
whisper="${IB_WHISPER_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/ib/models/whisper-tiny.en}"
[ -f "$whisper/model.bin" ] || skip "no Whisper model in $whisper: scripts/fetch-model whisper"
minilm="${IB_MODEL_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/ib/models/all-MiniLM-L6-v2}"
[ -f "$minilm/vocab.txt" ] || skip "no embedding model in $minilm: scripts/fetch-model"

# Three chapters, each its own text and longer than a chunk (256 tokens), so chunks
# lie inside chapter 2; its phrase is in its middle. Spoken by the SLT voice.
cat > "$tmp/ch1.txt" <<'EOF'
Chapter one. The morning train left the valley at seven. Margaret carried a small brown suitcase and a letter from her aunt. She watched the frozen river slide past the window and counted the bridges. The carriage was cold, and an old man across from her read a newspaper about the harvest. At the third station a boy came aboard with a basket of apples and sold them to the passengers. Margaret bought two and kept one for her aunt. The hills grew higher as the train climbed, and snow lay in the fields like a white blanket. She thought about the farm she had left behind, about her father mending the fence and her mother baking bread in the early light. When the conductor called the name of the town, she stood up, took her suitcase, and stepped down onto the wooden platform. Nobody was waiting for her. She read the letter again, found the address, and began to walk along the empty road toward the church. The wind pulled at her coat, and the sky was the colour of slate. A dog barked somewhere behind the houses, and the smell of wood smoke drifted over the roofs.
EOF
cat > "$tmp/ch2.txt" <<'EOF'
Chapter two. The island lay three miles from the coast, and the ferry went there only on Tuesdays. The tower stood on the rocks at the northern end, white and tall, with a red lamp room at the top. Every evening at sunset the old man climbed the one hundred and twelve steps and lit the lamp. He had done this for forty years, in storms and in calm weather, and he had never once missed a night. His wife had planted roses beside the cottage, and in the summer they climbed all the way to the roof. He spoke to the fishermen when they came to shelter in the harbour, and they brought him tobacco and news from the mainland. On Sundays he walked along the cliffs to the small chapel, where a priest from the mainland held a service twice a month. The congregation was never more than nine people, and most of them were over seventy. After the service they drank tea together and talked about the weather, the price of fish and the new school on the coast. In the spring of his fortieth year a young engineer came from the government to inspect the tower. She measured the walls, tested the lamp and wrote many pages in a black notebook. She told him that one day the lamp would work by itself, without anyone to light it. He showed her the view from the gallery and made her a pot of strong coffee, and she stayed until the last ferry. Each spring the lighthouse keeper painted the iron door bright green. He kept a logbook of every ship that passed, and he fed the seagulls with bread from the bakery. In the winter the sea rose over the rocks and the spray reached the windows of the lamp room. The engineer sent him a postcard from the capital with a picture of the river and the old bridges. He pinned it above the stove, beside the calendar and the tide tables. He listened to the radio and wrote letters to his daughter, who lived in the city and worked in a hospital. She wrote back every month and asked him to come and live with her, but he always said that the lamp needed him.
EOF
cat > "$tmp/ch3.txt" <<'EOF'
Chapter three. At the end of the summer the orchestra played in the town square. The children danced under paper lanterns, and the baker sold warm apple cakes until midnight. The mayor gave a short speech about the good harvest and thanked the farmers for their hard work. Then the musicians began a slow waltz, and the older couples came out to dance on the stones. The teacher and the doctor argued about politics at a table near the fountain, as they did every year. A young woman sang a song about the sea, and the whole square fell quiet to listen. When she finished, people clapped for a long time and asked her to sing again. The lanterns swayed in the warm wind, and moths circled around the lights. Late in the evening it began to rain a little, but nobody went home. The musicians moved under the arches of the town hall and went on playing. At midnight the church bell rang twelve times, and the baker gave away the last of his cakes to the children. Slowly the square emptied, and the lanterns went out one by one.
EOF
voice="(voice_cmu_us_slt_arctic_hts)"
for i in 1 2 3; do
  text2wave -eval "$voice" -o "$tmp/ch$i.wav" "$tmp/ch$i.txt" 2> "$tmp/tts.err" \
    || text2wave -o "$tmp/ch$i.wav" "$tmp/ch$i.txt" || skip "text2wave failed: $(cat "$tmp/tts.err")"
  # A second of silence after each chapter, as books have.
  ffmpeg -nostdin -v error -y -i "$tmp/ch$i.wav" -af "apad=pad_dur=1" -ar 22050 -ac 1 "$tmp/ch$i.pad.wav" || fail "padding chapter $i"
done
dur() { ffprobe -v error -show_entries format=duration -of csv=p=0 "$1"; }
d1=$(dur "$tmp/ch1.pad.wav"); d2=$(dur "$tmp/ch2.pad.wav"); d3=$(dur "$tmp/ch3.pad.wav")
python3 - "$tmp" "$d1" "$d2" "$d3" <<'PY'
import sys
tmp, durations = sys.argv[1], [float(x) for x in sys.argv[2:]]
titles = ["The Valley", "The Lighthouse", "The Square"]
out = [";FFMETADATA1", "title=Three Small Chapters", "artist=Test Reader", ""]
start = 0
for title, d in zip(titles, durations):
    end = start + int(d * 1000)
    out += ["[CHAPTER]", "TIMEBASE=1/1000", f"START={start}", f"END={end}", f"title={title}", ""]
    start = end
open(tmp + "/chapters.txt", "w").write("\n".join(out))
open(tmp + "/bounds", "w").write(" ".join(str(x) for x in [0, durations[0], durations[0] + durations[1], sum(durations)]))
PY
printf "file '%s'\n" "$tmp/ch1.pad.wav" "$tmp/ch2.pad.wav" "$tmp/ch3.pad.wav" > "$tmp/list.txt"
ffmpeg -nostdin -v error -y -f concat -safe 0 -i "$tmp/list.txt" -i "$tmp/chapters.txt" -map 0:a -map_metadata 1 -map_chapters 1 \
  -c:a aac -b:a 64k -f mp4 "$tmp/book.m4b" || fail "making the M4B"

# The book through the pipeline.
ib-parse "$tmp/book.m4b" > "$tmp/book.jsonl" 2> "$tmp/err" || fail "ib-parse book.m4b: exit $?: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "ib-parse book.m4b: unexpected stderr (not a terminal): $(head -2 "$tmp/err")"
python3 - "$tmp/book.jsonl" "$tmp/bounds" <<'PY' || fail "the M4B's records"
import json, re, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
bounds = [float(x) for x in open(sys.argv[2]).read().split()]
book, pages = recs[0], recs[1:]
assert book["type"] == "book" and book["format"] == "audio", book
assert book["title"] == "Three Small Chapters" and book["authors"] == ["Test Reader"], book
assert abs(book["duration"] - bounds[-1]) < 1, (book["duration"], bounds)
assert book["page_count"] == len(pages) >= 3
titles = ["The Valley", "The Lighthouse", "The Square"]
seen = []
for p in pages:
    assert p["start_time"] <= p["end_time"], p
    assert re.fullmatch(r"\d+:\d\d", p["label"]), p["label"]
    c = p["section_index"]
    assert p["section_title"] == titles[c], p
    assert bounds[c] - 0.5 <= p["start_time"] < bounds[c + 1], (p, bounds)
    if c not in seen:
        seen.append(c)
        assert [m["title"] for m in p["structure"]] == [titles[c]] and p["structure"][0]["kind"] == "chapter", p
text = " ".join(p["text"] for p in pages).lower().replace("-", "")
for word in ["margaret", "lighthouse", "seagulls", "orchestra", "lanterns"]:
    assert word in text, (word, text)
assert seen == [0, 1, 2], seen
PY
ib-chunk < "$tmp/book.jsonl" > "$tmp/chunks.jsonl" || fail "ib-chunk"
python3 - "$tmp/chunks.jsonl" <<'PY' || fail "chunks carry times"
import json, sys
chunks = [json.loads(l) for l in open(sys.argv[1]) if '"type":"chunk"' in l]
assert chunks and all(c["start_time"] <= c["end_time"] for c in chunks), chunks[:2]
PY
ib-embed < "$tmp/chunks.jsonl" | ib-index -q || fail "ib-embed | ib-index"
ib-search --all-pages "the lighthouse keeper painted the iron door bright green" > "$tmp/hits.jsonl" 2> "$tmp/err" || fail "ib-search: $(cat "$tmp/err")"
python3 - "$tmp/hits.jsonl" "$tmp/bounds" <<'PY' || fail "the search hit is not in chapter 2"
import json, sys
hits = [json.loads(l) for l in open(sys.argv[1])]
b = [float(x) for x in open(sys.argv[2]).read().split()]
top = hits[0]
assert "lighthouse" in top["text"].lower(), top
assert b[1] - 0.5 <= top["start_time"] < b[2] and top["end_time"] <= b[2] + 0.5, (top, b)
assert top["section"] == ["The Lighthouse"], top
assert top["time_label"].count(":") == 1, top
print(f"audio: chapter 2 hit at {top['time_label']} ({top['start_time']:.1f}-{top['end_time']:.1f} s; chapter 2 is {b[1]:.1f}-{b[2]:.1f} s)")
PY
[ "$(sqlite3 "$IB_DB" "SELECT count(*) FROM pages WHERE start_time IS NOT NULL")" -ge 3 ] || fail "pages.start_time not stored"
[ "$(sqlite3 "$IB_DB" "SELECT count(*) FROM chunks WHERE start_time IS NULL")" = 0 ] || fail "chunks.start_time not stored"

# The same speech in each container ib-parse reads (a short clip).
echo "Each spring the lighthouse keeper painted the iron door bright green, and he fed the seagulls with bread from the bakery." > "$tmp/clip.txt"
text2wave -eval "$voice" -o "$tmp/clip.wav" "$tmp/clip.txt" 2> /dev/null || text2wave -o "$tmp/clip.wav" "$tmp/clip.txt" || fail "speaking the clip"
ffmpeg -nostdin -v error -y -i "$tmp/clip.wav" "$tmp/ch2.mp3" &&
ffmpeg -nostdin -v error -y -i "$tmp/clip.wav" -c:a libopus "$tmp/ch2.opus" &&
ffmpeg -nostdin -v error -y -i "$tmp/clip.wav" "$tmp/ch2.flac" &&
ffmpeg -nostdin -v error -y -i "$tmp/clip.wav" -ar 44100 -ac 2 "$tmp/ch2.stereo.wav" || fail "converting chapter 2"
for f in ch2.mp3 ch2.opus ch2.flac ch2.stereo.wav; do
  ib-parse "$tmp/$f" > "$tmp/one.jsonl" 2> "$tmp/err" || { fail "$f: exit $?: $(cat "$tmp/err")"; continue; }
  python3 - "$tmp/one.jsonl" <<'PY' || fail "$f: records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert recs[0]["format"] == "audio" and len(recs) >= 2
text = " ".join(r["text"] for r in recs[1:]).lower().replace("-", "")
assert "lighthouse" in text and "seagulls" in text, text
PY
done
# ID3 CHAP frames: the same book as a chaptered MP3 has the same sections.
ffmpeg -nostdin -v error -y -i "$tmp/book.m4b" -map 0:a -map_metadata 0 -map_chapters 0 "$tmp/book.mp3" || fail "making the MP3"
ib-parse "$tmp/book.mp3" > "$tmp/mp3.jsonl" 2> "$tmp/err" || fail "book.mp3: exit $?: $(cat "$tmp/err")"
python3 - "$tmp/mp3.jsonl" <<'PY' || fail "book.mp3: ID3 chapters are not sections"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert recs[0]["title"] == "Three Small Chapters", recs[0]
titles = []
for p in recs[1:]:
    if p["section_title"] not in titles: titles.append(p["section_title"])
assert titles == ["The Valley", "The Lighthouse", "The Square"], titles
PY
# Audio on stdin is spooled to a temporary file for ffmpeg.
ib-parse - < "$tmp/ch2.mp3" > "$tmp/one.jsonl" 2> "$tmp/err" && grep -q lighthouse "$tmp/one.jsonl" || fail "audio on stdin: $(cat "$tmp/err")"

# Bad audio.
: > "$tmp/empty.mp3"
ffmpeg -nostdin -v error -y -i "$tmp/ch1.wav" -c:a aac -movflags +faststart "$tmp/whole.m4a"
head -c $(( $(stat -c %s "$tmp/whole.m4a") / 3 )) "$tmp/whole.m4a" > "$tmp/truncated.m4a"
head -c 64 "$tmp/whole.m4a" > "$tmp/header-only.m4a"
python3 - "$tmp" <<'PY'
import os, struct, sys
tmp = sys.argv[1]
# Not audio: random bytes behind an MP3 name, and an ID3 tag over noise.
open(tmp + "/noise.mp3", "wb").write(os.urandom(65536))
open(tmp + "/id3-noise.mp3", "wb").write(b"ID3\x03\x00\x00\x00\x00\x00\x00" + os.urandom(65536))
# A WAV claiming 100 channels.
data = b"\0" * 32000
fmt = struct.pack("<HHIIHH", 1, 100, 16000, 16000 * 2 * 100, 200, 16)
open(tmp + "/channels.wav", "wb").write(b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", len(data)) + data)
# A hostile container: an M4B whose boxes claim 4 GiB and nest a thousand deep.
def box(kind, body, size=None): return struct.pack(">I", size if size is not None else 8 + len(body)) + kind + body
nested = b""
for _ in range(1000): nested = box(b"trak", nested)
open(tmp + "/hostile.m4b", "wb").write(box(b"ftyp", b"M4B \0\0\0\0M4B isom") + box(b"moov", nested, size=0xFFFFFFF0) + os.urandom(4096))
PY
ffmpeg -nostdin -v error -y -f lavfi -i anullsrc=r=16000:cl=mono -t 3600 -c:a libopus -b:a 16k "$tmp/silence.opus" || fail "making an hour of silence"
books_before=$(sqlite3 "$IB_DB" "SELECT count(*) FROM books")
for f in empty.mp3 truncated.m4a header-only.m4a noise.mp3 id3-noise.mp3 channels.wav hostile.m4b silence.opus; do
  /usr/bin/time -f "%M %e" -o "$tmp/rss" ib-parse "$tmp/$f" > "$tmp/out" 2> "$tmp/err"; code=$?
  [ "$code" = 1 ] || fail "$f: exit $code, expected 1"
  [ -s "$tmp/out" ] && fail "$f: records written"
  [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "^ib-parse: $tmp/$f: " "$tmp/err" || fail "$f: stderr not one line naming the file: $(cat "$tmp/err")"
  read -r rss secs < <(tail -1 "$tmp/rss")
  [ "$rss" -lt 409600 ] || fail "$f: peak RSS $rss KB"
  echo "audio: $f -> $(sed "s|^ib-parse: $tmp/||" "$tmp/err") (${rss} KB, ${secs} s)"
  # Through the pipeline, nothing reaches the library.
  ib-parse "$tmp/$f" 2> /dev/null | ib-chunk | ib-embed | ib-index -q 2> /dev/null
done
[ "$(sqlite3 "$IB_DB" "SELECT count(*) FROM books")" = "$books_before" ] || fail "bad audio reached the library"

# Usage errors.
ib-parse --model "" "$tmp/ch2.mp3" > /dev/null 2>&1; [ $? = 2 ] || fail "--model '' is not exit 2"
ib-parse --model "$tmp/nowhere" "$tmp/ch2.mp3" > "$tmp/out" 2> "$tmp/err"; code=$?
[ "$code" = 1 ] && grep -q "fetch-model whisper" "$tmp/err" && [ ! -s "$tmp/out" ] || fail "a missing Whisper model: exit $code, $(cat "$tmp/err")"

[ $status = 0 ] && echo "audio: ok"
exit $status
