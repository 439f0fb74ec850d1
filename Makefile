# Makefile - the one build entry point of vxtrace
#
#   make             libvxtrace.a, libvxtui.a (the curses widgets) and build/vxrecord,
#                    build/vxreplay, build/vxtop (only the two browsers link ncurses)
#   make check       every test (units, command lines, TUI; module tests skip without qemu)
#   make check T=NAME  the tests called NAME: a Check suite, a cli, tui or kmod script
#   make check-kmod  the kernel module under qemu
#   make demo        record the built-in simulated workload and replay it
#   make bench       the benchmarks
#   make fuzz        the fuzz targets (FUZZ_SECONDS=N each)
#   make SAN=1 ...   the same with AddressSanitizer + UndefinedBehaviorSanitizer
#   make WERROR=-Werror ...   warnings are errors (CI)
#   make shared      build/libvxtrace.so (PIC objects in build/pic); `make all` also
#                    builds build/vxtrace_sqlite.so, the SQLite extension
#   make install PREFIX=/usr/local DESTDIR=...   (and uninstall); install-dkms; deb

CC       ?= cc
PKG      ?= pkg-config
PKGS      = libzstd yaml-0.1 libtracefs libtraceevent sqlite3
# the metrics endpoint (HTTP server); the ClickHouse sink's HTTP client,
# libcurl, is compiled against but loaded when a sink opens, so that its many
# shared objects do not slow the start of every program: headers only
PKGS     += libmicrohttpd
HDR_PKGS  = libcurl
TUI_PKGS  = ncursesw
WERROR   ?=
SAN      ?=

ifeq ($(SAN),1)
# -O1, as AddressSanitizer advises, and quicker to compile than -O2; its weaker
# value ranges give false format-truncation warnings; the -O2 build has them.
OPT      ?= -O1
B        := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
	    -Wno-format-truncation
else
B        := build
SANFLAGS :=
endif
OPT      ?= -O2

# The ebpf source's programs: built when clang, bpftool and libbpf are here
# and the build machine's kernel has BTF (for vmlinux.h; the programs are
# relocated to the running kernel at load time). EBPF=0 leaves them out.
CLANG    ?= clang
BPFTOOL  ?= bpftool
EBPF     ?= $(shell command -v $(CLANG) >/dev/null 2>&1 && command -v $(BPFTOOL) >/dev/null 2>&1 && \
	      $(PKG) --exists libbpf 2>/dev/null && [ -r /sys/kernel/btf/vmlinux ] && echo 1)
BPF_ARCH := $(shell uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/; s/ppc64le/powerpc/; s/s390x/s390/')
ifeq ($(EBPF),1)
PKGS     += libbpf
endif

PKG_CFLAGS := $(shell $(PKG) --cflags $(PKGS) $(HDR_PKGS) $(TUI_PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG) --libs $(PKGS) 2>/dev/null)
TUI_LIBS   := $(shell $(PKG) --libs $(TUI_PKGS) 2>/dev/null)
CHECK_CFLAGS := $(shell $(PKG) --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell $(PKG) --libs check 2>/dev/null)

CFLAGS   ?= $(OPT) -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wstrict-prototypes \
	     -Wno-missing-field-initializers $(WERROR) $(SANFLAGS) -Iinclude -Isrc/lib \
	     -Isrc/tui $(PKG_CFLAGS) $(CFLAGS) -MMD -MP
LDLIBS_ALL = $(PKG_LIBS) -lm -lpthread

LIB_LAYERS := common format source script select analysis sink query
LIB_SRC   := $(sort $(foreach l,$(LIB_LAYERS),$(wildcard src/lib/$(l)/*.c)))
TUI_SRC   := $(sort $(wildcard src/tui/*.c))
PROGS     := vxrecord vxreplay vxtop
TUI_PROGS := vxreplay vxtop
LIB_OBJ   := $(LIB_SRC:%.c=$(B)/%.o)
TUI_OBJ   := $(TUI_SRC:%.c=$(B)/%.o)
LIBA      := $(B)/libvxtrace.a
TUIA      := $(B)/libvxtui.a
UNIT_SRC  := $(sort $(wildcard tests/unit/test_*.c))
UNIT_OBJ  := $(UNIT_SRC:%.c=$(B)/%.o) $(B)/tests/unit/main.o $(B)/tests/unit/fixture.o

.PHONY: all deps check check-build check-unit check-cli check-tui check-kmod bench fuzz demo clean \
	install uninstall
SQL_EXT   := $(B)/vxtrace_sqlite.so
all: $(PROGS:%=$(B)/%) $(SQL_EXT)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# The column decoder's loops over one-byte values vectorize at -O3.
$(B)/src/lib/format/codec.o: ALL_CFLAGS += $(if $(filter -O2,$(OPT)),-O3)
# the run loop: each op dispatches the next itself (no common jump merged back)
$(B)/src/lib/script/vm.o $(B)/pic/src/lib/script/vm.o: ALL_CFLAGS += -fno-gcse -fno-crossjumping

$(LIBA): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# The curses widgets (src/tui/) are a library of their own: only the programs in
# TUI_PROGS link it and ncurses.
$(TUIA): $(TUI_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

ifeq ($(EBPF),1)
$(B)/bpf/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@
$(B)/bpf/vxtrace.bpf.o: src/lib/source/bpf/vxtrace.bpf.c src/lib/source/bpf/vxtrace_bpf.h \
			$(wildcard src/lib/source/bpf/*.bpf.h) \
			$(B)/bpf/vmlinux.h
	$(CLANG) -g -O2 -Wall $(WERROR) -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -I$(B)/bpf \
		-Isrc/lib/source/bpf -c $< -o $@
$(B)/bpf/vxtrace.skel.h: $(B)/bpf/vxtrace.bpf.o
	$(BPFTOOL) gen skeleton $< name vxtrace_bpf > $@.tmp && mv $@.tmp $@
EBPF_CFLAGS := -DVXT_HAVE_EBPF -I$(B)/bpf -Isrc/lib/source/bpf
$(B)/src/lib/source/source_ebpf.o $(B)/pic/src/lib/source/source_ebpf.o: $(B)/bpf/vxtrace.skel.h
$(B)/src/lib/source/source_ebpf.o $(B)/pic/src/lib/source/source_ebpf.o: ALL_CFLAGS += $(EBPF_CFLAGS)
$(B)/src/lib/source/ebpf_tally.o $(B)/pic/src/lib/source/ebpf_tally.o: ALL_CFLAGS += $(EBPF_CFLAGS)
$(B)/src/lib/source/ebpf_missed.o $(B)/pic/src/lib/source/ebpf_missed.o: $(B)/bpf/vxtrace.skel.h
$(B)/src/lib/source/ebpf_missed.o $(B)/pic/src/lib/source/ebpf_missed.o: ALL_CFLAGS += $(EBPF_CFLAGS)
$(B)/src/lib/source/ebpf_setup.o $(B)/pic/src/lib/source/ebpf_setup.o: $(B)/bpf/vxtrace.skel.h
$(B)/src/lib/source/ebpf_setup.o $(B)/pic/src/lib/source/ebpf_setup.o: ALL_CFLAGS += $(EBPF_CFLAGS)
endif

# src/cli/: the command-line conventions every program links.
CLI_SRC   := $(sort $(wildcard src/cli/*.c))
define prog_rule
$(1)_SRC := $$(sort $$(wildcard src/$(1)/*.c src/$(1)/*/*.c)) $(CLI_SRC)
$(1)_TUI := $$(if $$(filter $(1),$(TUI_PROGS)),$(TUIA))
$(B)/src/$(1)/%.o: ALL_CFLAGS += -Isrc/$(1) -Isrc/cli
$(B)/$(1): $$($(1)_SRC:%.c=$(B)/%.o) $$($(1)_TUI) $(LIBA)
	$$(CC) $(SANFLAGS) -o $$@ $$^ $$(LDLIBS_ALL) $$(if $$($(1)_TUI),$$(TUI_LIBS))
endef
$(foreach p,$(PROGS),$(eval $(call prog_rule,$(p))))

# The unit runner: one Check suite per tests/unit/test_NAME.c (function NAME_suite()).
$(B)/tests/unit/suites.h: $(UNIT_SRC) Makefile
	@mkdir -p $(dir $@)
	@{ for f in $(UNIT_SRC); do n=$$(basename $$f .c); n=$${n#test_}; \
	   echo "SUITE($$n)"; done; } > $@.tmp && \
	 if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi
$(B)/tests/unit/main.o: tests/unit/main.c $(B)/tests/unit/suites.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -I$(B)/tests/unit -c $< -o $@
$(B)/tests/unit/test_%.o: tests/unit/test_%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@
# what several suites share (fixture.h): the random generator, a random trace
# and the browser model's helpers
$(B)/tests/unit/fixture.o: tests/unit/fixture.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -Isrc/vxreplay -c $< -o $@
# vxtop's interval model is tested on its own (test_vxtop_*.c).
$(B)/tests/unit/test_vxtop_%.o: ALL_CFLAGS += -Isrc/vxtop
# so is the browser's curses-free model (test_browser_*.c).
$(B)/tests/unit/test_browser_%.o: ALL_CFLAGS += -Isrc/vxreplay
# The curses-free models the unit runner links: vxtop's (model, shown) and the
# browser's (src/vxreplay/browser/, with the report code its export writes
# through), from an archive so only what the tests use is pulled in.
UNIT_MODEL_SRC := src/vxtop/model.c src/vxtop/shown.c \
	$(sort $(wildcard src/vxreplay/browser/*.c src/vxreplay/report/*.c))
UNIT_BROWSER := $(B)/unit-models.a
$(UNIT_BROWSER): $(UNIT_MODEL_SRC:%.c=$(B)/%.o)
	@rm -f $@
	$(AR) rcs $@ $^
$(B)/unit-tests: $(UNIT_OBJ) $(UNIT_BROWSER) $(LIBA)
	$(CC) $(SANFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS_ALL)

# Helpers of the capture tests, standalone programs (tests/cli/comm_flood.sh).
TEST_TOOLS := $(B)/tests/tools/comm_flood
$(B)/tests/tools/%: tests/tools/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANFLAGS) -o $@ $<

deps:
	@sh contrib/install-deps.sh

check: deps
	@$(MAKE) --no-print-directory check-build
ifeq ($(origin T),command line)
	@sh tests/run-one.sh '$(T)' $(B)
else
	@echo "check: the command-line tests; beside them the TUI tests then the unit tests, and the module's guest tests (qemu); the logs of those two, $(B)/check-tui-unit.log and $(B)/check-kmod.log, follow at the end"
	@{ rc=0; $(MAKE) --no-print-directory check-tui || rc=1; \
	   $(MAKE) --no-print-directory check-unit || rc=1; exit $$rc; } >$(B)/check-tui-unit.log 2>&1 & \
	 tui=$$!; \
	 $(MAKE) --no-print-directory check-kmod-maybe >$(B)/check-kmod.log 2>&1 & \
	 kmod=$$!; rc=0; \
	 $(MAKE) -k --no-print-directory check-cli || rc=1; \
	 wait $$tui || rc=1; cat $(B)/check-tui-unit.log; \
	 wait $$kmod || rc=1; cat $(B)/check-kmod.log; exit $$rc
endif

# what the tests run: the programs, the unit tests and the test helpers
check-build: all $(B)/unit-tests $(TEST_TOOLS)

check-unit: $(B)/unit-tests
	VXT_SHARED=$(CURDIR)/../shared $(B)/unit-tests

check-cli: all $(TEST_TOOLS)
	@sh tests/run-scripts.sh cli $(B)

check-tui: all
	@sh tests/run-scripts.sh tui $(B)

check-kmod-maybe:
	@if [ -x tests/kmod/run.sh ]; then sh tests/kmod/run.sh --if-possible $(B); \
	 else echo "kmod tests: skipped (tests/kmod/run.sh missing)"; fi
	@if [ -x tests/kmod/newer.sh ]; then sh tests/kmod/newer.sh --if-possible $(B); fi
	@if [ -x tests/kmod/lockdown.sh ]; then sh tests/kmod/lockdown.sh --if-possible $(B); fi

check-kmod: all
	@sh tests/kmod/run.sh $(B)
	@sh tests/kmod/lockdown.sh $(B)

bench: all
	@sh tests/bench/run.sh $(B)

fuzz:
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS)

demo: deps
	@$(MAKE) --no-print-directory all
	@sh contrib/demo.sh $(B)

clean:
	rm -rf build build-san
	@if [ -f kmod/Makefile ]; then $(MAKE) -C kmod clean >/dev/null 2>&1 || true; fi

include contrib/install.mk

-include $(shell find $(B) \( -path $(B)/deb -o -path $(B)/fuzz \) -prune -o -name '*.d' -type f -print 2>/dev/null)
