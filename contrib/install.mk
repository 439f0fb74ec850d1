# install.mk - the shared library, vxtrace.pc, install, uninstall, install-dkms
#
# Included by the top Makefile. The shared library is built from its own -fPIC
# objects under $(B)/pic, so libvxtrace.a and the programs are untouched.
#
#   make install PREFIX=/usr/local DESTDIR=/tmp/stage
#   make uninstall PREFIX=/usr/local
#   make install-dkms DESTDIR=...        the module's source for dkms under /usr/src
#   make deb                             Debian packages in build/deb (contrib/debian)
#
# Directory variables follow the GNU conventions and may be set one by one
# (e.g. LIBDIR=/usr/lib/x86_64-linux-gnu for a Debian multiarch layout).

PREFIX        ?= /usr/local
BINDIR        ?= $(PREFIX)/bin
LIBDIR        ?= $(PREFIX)/lib
INCLUDEDIR    ?= $(PREFIX)/include
DATADIR       ?= $(PREFIX)/share
MANDIR        ?= $(DATADIR)/man
PKGCONFIGDIR  ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR   ?= $(DATADIR)/bash-completion/completions
SYSTEMDDIR    ?= $(PREFIX)/lib/systemd/system
UDEVDIR       ?= $(PREFIX)/lib/udev/rules.d
DKMSDIR       ?= /usr/src
INSTALL       ?= install

VXT_VERSION := $(shell sed -n 's/^\#define VXT_VERSION_STRING "\(.*\)"/\1/p' \
		 include/vxtrace/vxtrace.h)
SOMAJOR     := $(firstword $(subst ., ,$(VXT_VERSION)))
SONAME      := libvxtrace.so.$(SOMAJOR)
LIBSO       := $(B)/libvxtrace.so.$(VXT_VERSION)
PIC_OBJ     := $(LIB_SRC:%.c=$(B)/pic/%.o)
PC_FILE     := $(B)/vxtrace.pc

MAN_PAGES   := $(wildcard contrib/man/*.[1-8])
PROFILES    := $(wildcard formats/profiles/*.yaml formats/profiles/*.d)
COMPLETIONS := $(wildcard contrib/bash-completion/vx*)
HEADERS     := $(wildcard include/vxtrace/*.h)

.PHONY: shared install-dkms uninstall-dkms deb FORCE

# The programs find the shipped profiles in $(PROFILE_DATADIR), compiled into
# profile.c (and its unit test); the stamp rebuilds them (and relinks) when
# PREFIX or DATADIR change.
PROFILE_DATADIR := $(DATADIR)/vxtrace/profiles
$(B)/datadir.stamp: FORCE
	@mkdir -p $(B)
	@echo '$(PROFILE_DATADIR)' | cmp -s - $@ || echo '$(PROFILE_DATADIR)' > $@
DATADIR_OBJ := $(B)/src/lib/select/profile.o $(B)/pic/src/lib/select/profile.o \
	       $(B)/tests/unit/test_profile.o
$(DATADIR_OBJ): $(B)/datadir.stamp
$(DATADIR_OBJ): ALL_CFLAGS += -DVXT_PROFILE_DATADIR='"$(PROFILE_DATADIR)"'

shared: $(LIBSO) $(PC_FILE)

$(B)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -c $< -o $@

# The SQLite extension (sqlite3's .load vxtrace_sqlite): the library's PIC
# objects, with the SQL module's own built to call the loading SQLite
# through its routine table (so it links no libsqlite3 of its own).
SQL_SRC     := $(filter src/lib/query/%.c,$(LIB_SRC))
EXT_OBJ     := $(SQL_SRC:%.c=$(B)/ext/%.o) $(filter-out $(SQL_SRC:%.c=$(B)/pic/%.o),$(PIC_OBJ))
$(B)/ext/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -DVXT_SQL_EXTENSION -c $< -o $@
$(SQL_EXT): $(EXT_OBJ)
	$(CC) $(SANFLAGS) $(LDFLAGS) -shared -Wl,-z,defs -o $@ $^ $(filter-out -lsqlite3,$(LDLIBS_ALL))

$(LIBSO): $(PIC_OBJ)
	$(CC) $(SANFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,-z,defs -o $@ $^ $(LDLIBS_ALL)
	ln -sf $(notdir $@) $(B)/$(SONAME)
	ln -sf $(SONAME) $(B)/libvxtrace.so

$(PC_FILE): contrib/vxtrace.pc.in include/vxtrace/vxtrace.h
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VXT_VERSION)|' \
	    -e 's|@LIBS_PRIVATE@|$(strip $(PKG_LIBS) -lm -lpthread)|' $< > $@.tmp && mv $@.tmp $@

# PREFIX may differ between runs: always regenerate the .pc at install.
install: all shared
	@rm -f $(PC_FILE) && $(MAKE) --no-print-directory $(PC_FILE)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(INCLUDEDIR)/vxtrace $(DESTDIR)$(DATADIR)/vxtrace/profiles \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(SYSTEMDDIR) $(DESTDIR)$(UDEVDIR)
	$(INSTALL) -m 755 $(PROGS:%=$(B)/%) $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)
	ln -sf $(notdir $(LIBSO)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libvxtrace.so
	$(INSTALL) -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)
	$(INSTALL) -m 755 $(SQL_EXT) $(DESTDIR)$(LIBDIR)
	$(INSTALL) -m 644 $(PC_FILE) $(DESTDIR)$(PKGCONFIGDIR)
	$(INSTALL) -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/vxtrace
	$(if $(PROFILES),$(INSTALL) -m 644 $(PROFILES) $(DESTDIR)$(DATADIR)/vxtrace/profiles)
	@for m in $(MAN_PAGES); do s=$${m##*.}; \
	  $(INSTALL) -d $(DESTDIR)$(MANDIR)/man$$s && \
	  echo "$(INSTALL) -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s" && \
	  $(INSTALL) -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s || exit 1; done
	$(if $(COMPLETIONS),$(INSTALL) -m 644 $(COMPLETIONS) $(DESTDIR)$(BASHCOMPDIR))
	@for u in $(wildcard contrib/systemd/*.service); do \
	  echo "install $$u $(DESTDIR)$(SYSTEMDDIR) (programs in $(BINDIR))"; \
	  sed 's|/usr/bin/|$(BINDIR)/|g' $$u > $(DESTDIR)$(SYSTEMDDIR)/$${u##*/} && \
	  chmod 644 $(DESTDIR)$(SYSTEMDDIR)/$${u##*/} || exit 1; done
	$(if $(wildcard contrib/udev/*.rules),$(INSTALL) -m 644 \
		$(wildcard contrib/udev/*.rules) $(DESTDIR)$(UDEVDIR))
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; \
	 then ldconfig; fi

uninstall:
	rm -f $(PROGS:%=$(DESTDIR)$(BINDIR)/%)
	rm -f $(DESTDIR)$(LIBDIR)/libvxtrace.so $(DESTDIR)$(LIBDIR)/libvxtrace.so.$(SOMAJOR) \
	      $(DESTDIR)$(LIBDIR)/$(notdir $(LIBSO)) $(DESTDIR)$(LIBDIR)/libvxtrace.a \
	      $(DESTDIR)$(LIBDIR)/$(notdir $(SQL_EXT))
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/vxtrace.pc
	rm -f $(HEADERS:include/vxtrace/%=$(DESTDIR)$(INCLUDEDIR)/vxtrace/%)
	rm -f $(PROFILES:formats/profiles/%=$(DESTDIR)$(DATADIR)/vxtrace/profiles/%)
	rm -f $(foreach m,$(MAN_PAGES),$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))
	rm -f $(COMPLETIONS:contrib/bash-completion/%=$(DESTDIR)$(BASHCOMPDIR)/%)
	rm -f $(patsubst contrib/systemd/%,$(DESTDIR)$(SYSTEMDDIR)/%,$(wildcard contrib/systemd/*.service))
	rm -f $(patsubst contrib/udev/%,$(DESTDIR)$(UDEVDIR)/%,$(wildcard contrib/udev/*.rules))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/vxtrace $(DESTDIR)$(DATADIR)/vxtrace/profiles \
	       $(DESTDIR)$(DATADIR)/vxtrace 2>/dev/null

# The module's source where dkms looks for it: $(DKMSDIR)/vxtrace-VERSION with
# dkms.conf, kmod/ and the channel ABI header kmod/Kbuild includes.
DKMS_SRC := $(DESTDIR)$(DKMSDIR)/vxtrace-$(VXT_VERSION)

install-dkms:
	@[ -f kmod/Kbuild ] || { echo "install-dkms: kmod/Kbuild missing" >&2; exit 1; }
	$(INSTALL) -d $(DKMS_SRC)/kmod $(DKMS_SRC)/include/vxtrace
	sed 's|#MODULE_VERSION#|$(VXT_VERSION)|' contrib/dkms/dkms.conf > $(DKMS_SRC)/dkms.conf
	$(INSTALL) -m 644 kmod/Kbuild kmod/Makefile $(filter-out %.mod.c,$(wildcard kmod/*.[ch])) $(DKMS_SRC)/kmod
	$(INSTALL) -m 644 include/vxtrace/voltrace.h $(DKMS_SRC)/include/vxtrace

uninstall-dkms:
	rm -rf $(DKMS_SRC)

# Debian packages (vxtrace, libvxtrace0, libvxtrace-dev, vxtrace-dkms) built
# from a copy of the tracked files with contrib/debian as debian/.
DEB_DIR ?= $(B)/deb
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/vxtrace-$(VXT_VERSION)
	git ls-files -z | tar --null -T - -cf - | tar -x -C $(DEB_DIR)/vxtrace-$(VXT_VERSION)
	cp -r contrib/debian $(DEB_DIR)/vxtrace-$(VXT_VERSION)/debian
	cd $(DEB_DIR)/vxtrace-$(VXT_VERSION) && dpkg-buildpackage -us -uc -b
