# Incremental ingestion of a directory tree with make.
#
#   make -f scripts/batch/ib.mk SRC=~/books DB=~/library.db -j8
#
# One .jsonl per source document holds its book, page, chunk and embedding
# records (parse through embed); an .indexed stamp records that the library
# has it. Re-running after nothing changed does nothing; after one file
# changed, only that file is parsed, embedded and indexed again (ib-index
# replaces the old version of a changed file atomically). Concurrent ib-index
# writers under -j are safe. Set INDEX_AT_END=1 to index every shard in one
# ib-index run at the end instead of one run per document.
# File names must not contain spaces or colons (a limit of make itself).

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec
.DELETE_ON_ERROR:

SRC ?= books
OUT ?= .ib
DB ?= library.db
EXTENSIONS ?= pdf epub docx html htm md markdown txt
PARSE ?= ib-parse
CHUNK ?= ib-chunk
EMBED ?= ib-embed
INDEX ?= ib-index

# -L: a folder of links to books (or a linked folder) is ingested like the books themselves.
DOCS := $(shell find -L $(SRC) -type f \( $(foreach e,$(EXTENSIONS),-iname '*.$(e)' -o) -false \) | sort)
SHARDS := $(patsubst $(SRC)/%,$(OUT)/%.jsonl,$(DOCS))
STAMPS := $(SHARDS:.jsonl=.indexed)

ifeq ($(INDEX_AT_END),1)
all: $(OUT)/all.indexed
else
all: $(STAMPS)
endif

# parse, chunk and embed one document; the shard appears only when complete.
# On a terminal, a line on stderr counts the documents whose shard is made.
$(OUT)/%.jsonl: $(SRC)/%
	@mkdir -p $(@D)
	$(PARSE) '$<' | $(CHUNK) | $(EMBED) > '$@.tmp'
	mv '$@.tmp' '$@'
	@if [ -t 2 ]; then echo "ib.mk: $$(find '$(OUT)' -name '*.jsonl' | wc -l)/$(words $(DOCS)) documents embedded" >&2; fi

# index one shard
$(OUT)/%.indexed: $(OUT)/%.jsonl
	$(INDEX) --db '$(DB)' '$<'
	touch '$@'

# or index every shard in one run
$(OUT)/all.indexed: $(SHARDS)
	$(INDEX) --db '$(DB)' $^
	touch '$@'

clean:
	rm -rf '$(OUT)'

.PHONY: all clean
