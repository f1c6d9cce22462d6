# ib: build, install and uninstall like a Unix tool (GNU conventions).
#
#   make                                  the tools (release), ibvec.so, build-info
#   make install PREFIX=/usr/local        also DESTDIR, BINDIR, MANDIR, DATADIR...
#   make uninstall                        removes exactly what install wrote
#   make check                            scripts/test
#
# The tools find PREFIX/lib/ib (build-info for --version, fetch-model and
# build-thesaurus for their messages) as BINDIR/../lib/ib, so keep BINDIR
# PREFIX/bin. The prompts and the schema are compiled into the tools; the
# copies in DATADIR/ib are for reading and for other programs.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec

PREFIX ?= /usr/local
EXEC_PREFIX ?= $(PREFIX)
BINDIR ?= $(EXEC_PREFIX)/bin
LIBDIR ?= $(EXEC_PREFIX)/lib
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/site-functions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
IBLIBDIR = $(LIBDIR)/ib
IBDATADIR = $(DATADIR)/ib

SWIFT ?= swift
SWIFT_FLAGS ?= -c release
INSTALL ?= install
# The build folder; evaluated only by the targets that need it.
BIN = $(shell $(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)

TOOLS := ib-parse ib-chunk ib-embed ib-index ib-search ib-ask ib-capture ib-mcp ib-transcribe
MAN1 := $(TOOLS:%=man/man1/%.1)
MAN7 := man/man7/ib.7 man/man7/ibvec.7
PROMPTS := $(sort $(wildcard shared/prompts/*.md))
SCHEMA := $(sort $(wildcard shared/schema/*.sql))
SCRIPTS := fetch-model build-thesaurus
# The batch recipe the README and ib(7) present is installed too:
# make -f PREFIX/share/ib/ib.mk and PREFIX/lib/ib/parallel-ingest.

# Every file install writes, under $(DESTDIR); uninstall removes these and no others.
INSTALLED := $(TOOLS:%=$(BINDIR)/%) \
	$(IBLIBDIR)/ibvec.so $(IBLIBDIR)/build-info $(SCRIPTS:%=$(IBLIBDIR)/%) \
	$(IBLIBDIR)/parallel-ingest $(IBDATADIR)/ib.mk \
	$(PROMPTS:shared/%=$(IBDATADIR)/%) $(SCHEMA:shared/%=$(IBDATADIR)/%) \
	$(MAN1:man/%=$(MANDIR)/%) $(MAN7:man/%=$(MANDIR)/%) \
	$(TOOLS:%=$(BASHCOMPDIR)/%) $(ZSHCOMPDIR)/_ib $(TOOLS:%=$(FISHCOMPDIR)/%.fish)
# The folders only ib uses; uninstall removes them when empty.
OWNDIRS := $(IBDATADIR)/prompts $(IBDATADIR)/schema $(IBDATADIR) $(IBLIBDIR)

.PHONY: all build install uninstall check installed-files
all: build

build:
	$(SWIFT) build $(SWIFT_FLAGS)
	@bin='$(BIN)'; scripts/build-ibvec "$$bin/ibvec.so" >/dev/null; \
	commit=$$(git rev-parse HEAD 2>/dev/null || echo unknown); \
	if [ "$$commit" != unknown ] && ! git diff --quiet HEAD -- 2>/dev/null; then commit="$$commit-dirty"; fi; \
	printf 'version=%s\ncommit=%s\n' "$$(sed -n 's/^public let ibVersion = "\(.*\)"/\1/p' Sources/IBCore/Arguments.swift)" "$$commit" > "$$bin/build-info.tmp"; \
	if cmp -s "$$bin/build-info.tmp" "$$bin/build-info"; then rm "$$bin/build-info.tmp"; else mv "$$bin/build-info.tmp" "$$bin/build-info"; fi

# make install builds first unless NO_BUILD=1 (scripts/package-deb builds with its own flags).
install: $(if $(NO_BUILD),,build)
	@bin='$(BIN)'; d='$(DESTDIR)'; \
	$(INSTALL) -d "$$d$(BINDIR)" "$$d$(IBLIBDIR)" "$$d$(IBDATADIR)/prompts" "$$d$(IBDATADIR)/schema" \
	  "$$d$(MANDIR)/man1" "$$d$(MANDIR)/man7" "$$d$(BASHCOMPDIR)" "$$d$(ZSHCOMPDIR)" "$$d$(FISHCOMPDIR)"; \
	for t in $(TOOLS); do $(INSTALL) -m 755 "$$bin/$$t" "$$d$(BINDIR)/$$t"; done; \
	$(INSTALL) -m 644 "$$bin/ibvec.so" "$$bin/build-info" "$$d$(IBLIBDIR)/"; \
	for s in $(SCRIPTS); do $(INSTALL) -m 755 "scripts/$$s" "$$d$(IBLIBDIR)/$$s"; done; \
	$(INSTALL) -m 755 scripts/batch/parallel-ingest "$$d$(IBLIBDIR)/parallel-ingest"; \
	$(INSTALL) -m 644 scripts/batch/ib.mk "$$d$(IBDATADIR)/ib.mk"; \
	$(INSTALL) -m 644 $(PROMPTS) "$$d$(IBDATADIR)/prompts/"; \
	$(INSTALL) -m 644 $(SCHEMA) "$$d$(IBDATADIR)/schema/"; \
	$(INSTALL) -m 644 $(MAN1) "$$d$(MANDIR)/man1/"; \
	$(INSTALL) -m 644 $(MAN7) "$$d$(MANDIR)/man7/"; \
	for t in $(TOOLS); do \
	  $(INSTALL) -m 644 completions/ib.bash "$$d$(BASHCOMPDIR)/$$t"; \
	  $(INSTALL) -m 644 completions/ib.fish "$$d$(FISHCOMPDIR)/$$t.fish"; \
	done; \
	$(INSTALL) -m 644 completions/_ib "$$d$(ZSHCOMPDIR)/_ib"; \
	echo "installed $(words $(INSTALLED)) files under $$d$(PREFIX) (make installed-files lists them)"

# Removes the installed files, then ib's own folders; under a DESTDIR, also
# every folder that install's files leave empty, up to DESTDIR.
uninstall:
	@d='$(DESTDIR)'; \
	for f in $(INSTALLED); do rm -f "$$d$$f"; done; \
	for dir in $(OWNDIRS); do [ ! -d "$$d$$dir" ] || rmdir --ignore-fail-on-non-empty "$$d$$dir"; done; \
	if [ -n "$$d" ]; then \
	  for f in $(INSTALLED); do \
	    dir=$$(dirname "$$d$$f"); \
	    while [ "$${dir#$${d%/}/}" != "$$dir" ] && { [ ! -d "$$dir" ] || rmdir "$$dir" 2>/dev/null; }; do \
	      dir=$$(dirname "$$dir"); \
	    done; \
	  done; \
	fi; \
	echo "removed ib's files from $$d$(PREFIX)"

# The list of files install writes (without DESTDIR), one a line.
installed-files:
	@printf '%s\n' $(INSTALLED)

check:
	scripts/test
