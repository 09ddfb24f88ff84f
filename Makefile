# svclab: two commands set everything up on a fresh machine:
#   make demo   # builds, then runs the embedded default scenario (needs root)
#   make test   # the whole test suite, privileged tests included (needs root)

# Go: the first go at least as new as go.mod's `go` line, looked up in
# PATH, /usr/local/go/bin (which sudo's secure_path drops) and
# .toolchain/go/bin (where `make setup` puts the toolchain it fetches when
# there is none): see .ci/go-toolchain.sh. Evaluated when used, so the
# targets after setup see what setup brought. GO=/path/to/go overrides.
GO        ?= $(or $(shell .ci/go-toolchain.sh find 2>/dev/null),go)
# gofmt of the same release (an older one in PATH may format differently).
GOFMT      = $(if $(findstring /,$(GO)),$(dir $(GO))gofmt,gofmt)
# Tests and generators that run `go` themselves get the same go first in PATH.
GOINPATH   = $(if $(findstring /,$(GO)),PATH="$(dir $(GO)):$$PATH")
BIN       := bin/svclab
# What `svclab version` and every run's meta.json say: the commit (with
# -dirty for uncommitted changes) and the version, a v* tag on HEAD or else
# Go's pseudo-version for the commit (v0.0.0-UTCDATE-COMMIT).
GIT       := git -c safe.directory=$(CURDIR)
COMMIT    := $(shell c=$$($(GIT) rev-parse --short=12 HEAD 2>/dev/null) && { $(GIT) diff --quiet HEAD 2>/dev/null || c=$$c-dirty; echo $$c; })
VERSION   := $(shell $(GIT) describe --tags --match 'v[0-9]*' --exact-match 2>/dev/null || TZ=UTC $(GIT) log -1 --abbrev=12 --date=format-local:%Y%m%d%H%M%S --format=v0.0.0-%cd-%h 2>/dev/null)
# `sudo make` in a user's clone: git, and go's VCS stamping, refuse a
# repository that root does not own ("dubious ownership"); running its
# Makefile as root already trusts it, so the recipes' git trusts it too.
export GIT_CONFIG_COUNT   := 1
export GIT_CONFIG_KEY_0   := safe.directory
export GIT_CONFIG_VALUE_0 := $(CURDIR)
BUILDINFO := github.com/svclab/svclab/sim/buildinfo
LDFLAGS   := -X $(BUILDINFO).Commit=$(COMMIT) -X $(BUILDINFO).Version=$(VERSION)
# Under sudo, what the build writes into the clone is the user's, as the
# clone is (else the user's next make cannot replace it).
SUDO_OWNS  = [ "$$(id -u)" != 0 ] || [ -z "$$SUDO_UID" ] || [ -z "$$SUDO_GID" ] || chown "$$SUDO_UID:$$SUDO_GID"
# make install: svclab and the kube-proxy drivers side by side in
# $(PREFIX)/bin, where svclab looks for its drivers (next to itself) and
# where sudo's secure_path finds svclab.
PREFIX    ?= /usr/local
# Debian packages the lab, its tests and the IPVS guest need.
APT_PACKAGES := iptables nftables iproute2 conntrack ipset ipvsadm kmod user-mode-linux procps curl python3
# -p 1: the privileged tests measure real traffic; running packages one at a time
# keeps them from competing for the 2 CPUs (and from flaking on timing).
GOTEST_FLAGS ?= -count=1 -p 1 -timeout 20m

.PHONY: setup build install test test-unit cross demo lint bench clean-lab fuzz bpf baseline kube-proxy test-kube-proxy

setup: ## install Debian packages, a Go as new as go.mod's (idempotent) and Go modules
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "setup: installing$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "setup: need root to install$$missing (run: sudo make setup)"; exit 1; fi; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null 2>&1 || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; }; \
	fi
ifeq ($(origin GO),file)
	@go=$$(.ci/go-toolchain.sh install) && $$go mod download
else
	@$(GO) mod download
endif

build: setup
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/svclab
	@$(SUDO_OWNS) bin $(BIN)

# Installs what is built: svclab, and the kube-proxy drivers if
# `make kube-proxy` built them (it is not run here: it takes minutes).
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/svclab
	@for d in bin/kube-proxy-driver-*; do \
	  [ -f "$$d" ] || { echo "install: no kube-proxy drivers in bin/ (make kube-proxy builds them; then make install again)"; break; }; \
	  echo "install -m 0755 $$d $(DESTDIR)$(PREFIX)/bin/"; install -m 0755 "$$d" $(DESTDIR)$(PREFIX)/bin/ || exit 1; \
	done

# The main module's tests, with kube-proxy's conformance suites beside them:
# those are pure Go (no kernel, no namespaces, no processes), so they run in
# the idle scheduling class (chrt --idle), taking only the CPU the lab tests
# leave free (about a third of two cores here). They still slow what they
# overlap a little (the vCPUs share caches: cmd/svclab's tests took 361 s
# alone, 410-450 s beside them) but finish inside the main tests. The
# kubeproxy module's other tests (the drivers in scratch namespaces) run
# after, as they must not overlap the main module's checks for leftovers.
test: setup lint cross kube-proxy
	@mkdir -p bin; start=$$(date +%s); \
	$(IDLE_CLASS) $(MAKE) --no-print-directory -j$(KP_JOBS) kp-conformance > bin/kp-conformance.log 2>&1 & kp=$$!; \
	$(GOINPATH) $(GO) test $(GOTEST_FLAGS) ./...; main=$$?; \
	echo "the main module's tests: $$(( $$(date +%s) - start )) s"; \
	echo "kube-proxy's conformance suites, run beside the tests above (bin/kp-conformance.log):"; \
	wait $$kp; conformance=$$?; cat bin/kp-conformance.log; \
	echo "the main module's tests and the conformance suites: $$(( $$(date +%s) - start )) s"; \
	[ $$main = 0 ] && [ $$conformance = 0 ]
	@$(MAKE) --no-print-directory -j$(KP_JOBS) kp-driver-tests

# Everything that needs no root, no Debian packages and no kube-proxy build:
# gofmt, vet, the unit tests (privileged tests skip, even as root or under CI)
# and the cross-builds. The push workflow (.github/workflows/ci.yml) runs it.
test-unit:
	@test -z "$$($(GOFMT) -l $$($(GIT) ls-files '*.go'))" || { echo "gofmt needed:"; $(GOFMT) -l $$($(GIT) ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	SVCLAB_TEST_UNPRIVILEGED=1 $(GOINPATH) $(GO) test -count=1 ./...
	GOOS=darwin $(GO) build -o /dev/null ./cmd/svclab
	GOOS=windows $(GO) build -o /dev/null ./cmd/svclab

# kube-proxy's own proxiers as svclab's engine and oracle: a nested module
# (kubeproxy/, see its README), one driver binary per kube-proxy version.
# KP_VERSIONS are the supported versions, oldest first, as the version table
# (sim/render/version.go) lists them (kubeproxy/driver's tests check that);
# the newest builds with go.mod, every other with go.1XX.mod and the build
# tag kp1XX.
KP_VERSIONS := 1.34 1.35 1.36 1.37
KP_LATEST   := $(lastword $(KP_VERSIONS))
kp_flags     = $(if $(filter $(1),$(KP_LATEST)),,-modfile=go.$(subst .,,$(1)).mod -tags kp$(subst .,,$(1)))
KP_DRIVERS  := $(KP_VERSIONS:%=bin/kube-proxy-driver-%)
.PHONY: $(KP_DRIVERS)

kube-proxy: $(KP_DRIVERS) ## build bin/kube-proxy-driver-<version> for each of KP_VERSIONS

$(KP_DRIVERS): bin/kube-proxy-driver-%:
	cd kubeproxy && CGO_ENABLED=0 $(GO) build $(call kp_flags,$*) -o ../$@ ./cmd/kube-proxy-driver
	@$(SUDO_OWNS) bin $@

# KP_CLUSTERS is how many random clusters (per mode) the conformance suite
# compares for the newest version, KP_OLDER_CLUSTERS for the others: the
# versions differ only in the facts of their rows (sim/render/version.go),
# which every cluster exercises, so 150 keep every feature in the mix while
# four versions fit make test's time (SVCLAB_CONFORMANCE_CLUSTERS): the
# three older run one after another beside the newest (KP_JOBS), so their
# sum is no longer than the newest's 1,000.
KP_CLUSTERS       ?= 1000
KP_OLDER_CLUSTERS ?= 150
kp_clusters = $(if $(filter $(1),$(KP_LATEST)),$(KP_CLUSTERS),$(KP_OLDER_CLUSTERS))

# kp_test runs the kubeproxy module's tests in packages $(2) against
# kube-proxy version $(1), printing the summary lines (log: bin/kubeproxy-test-$(1)-$(3).log).
# Their temporary files (the driver's nft stubs among them) go to a
# directory of their own under bin/, not /tmp, where the main module's
# tests look for what svclab left behind.
kp_test = echo "go test (kubeproxy, kube-proxy v$(1), $(3)$(if $(filter conformance,$(3)),$(comma) $(call kp_clusters,$(1)) clusters per mode)) $(call kp_flags,$(1)) $(2)"; \
	  start=$$(date +%s); log=bin/kubeproxy-test-$(1)-$(3).log; tmp=$(CURDIR)/bin/tmp-kubeproxy-$(1)-$(3); \
	  rm -rf $$tmp && mkdir -p $$tmp && \
	  (cd kubeproxy && TMPDIR=$$tmp SVCLAB_CONFORMANCE_CLUSTERS=$(call kp_clusters,$(1)) CGO_ENABLED=0 $(GOINPATH) $(GO) test $(GOTEST_FLAGS) -v $(call kp_flags,$(1)) $(2) > ../$$log 2>&1); s=$$?; rm -rf $$tmp; \
	  grep -E 'clusters, [0-9]+ syncs|^(ok|FAIL|--- FAIL)' $$log; \
	  echo "kube-proxy v$(1), $(3): $$(( $$(date +%s) - start )) s"; \
	  [ $$s = 0 ] || { tail -50 $$log; exit $$s; };
comma := ,

test-kube-proxy: kube-proxy ## the kubeproxy module's tests for each of KP_VERSIONS
	@$(MAKE) --no-print-directory -j$(KP_JOBS) kp-conformance
	@$(MAKE) --no-print-directory -j$(KP_JOBS) kp-driver-tests

# The versions' suites are independent and each mostly keeps one core busy,
# so KP_JOBS of them run at once (two on a 2-core machine: about half the
# time of one after another). The newest, with KP_CLUSTERS clusters, takes
# about as long as the three others together, so it starts first.
KP_JOBS  ?= 2
# IDLE_CLASS runs a command in the idle scheduling class (SCHED_IDLE), where
# it gets a CPU only when no other task wants it.
IDLE_CLASS := $(if $(shell command -v chrt),chrt --idle 0)
KP_CONFORMANCE  := $(KP_LATEST:%=kp-conformance-%) $(filter-out kp-conformance-$(KP_LATEST),$(KP_VERSIONS:%=kp-conformance-%))
KP_DRIVER_TESTS := $(KP_VERSIONS:%=kp-driver-test-%)
.PHONY: kp-conformance kp-driver-tests $(KP_CONFORMANCE) $(KP_DRIVER_TESTS)
kp-conformance: $(KP_CONFORMANCE)
kp-driver-tests: $(KP_DRIVER_TESTS)
$(KP_CONFORMANCE): kp-conformance-%:
	@mkdir -p bin
	@$(call kp_test,$*,./conformance/,conformance)
$(KP_DRIVER_TESTS): kp-driver-test-%:
	@mkdir -p bin
	@$(call kp_test,$*,./driver/ ./cmd/...,driver)

# The cluster integration test's control plane (lab/cluster/clustertest):
# etcd, kube-apiserver and Kubernetes' Job controller, built from the modules
# .ci/controlplane pins (k8s.io/kubernetes, and go.etcd.io/etcd/server/v3 in
# .ci/controlplane/etcd; Debian 12's etcd 3.4.23 is too old for
# kube-apiserver 1.37). Not part of `make test`: cold, the build takes over an
# hour on 2 cores (docs/image-and-cluster.md has the times measured); warm 38 s.
CONTROLPLANE := bin/etcd bin/kube-apiserver bin/job-controller
# The version kube-apiserver reports (/version), as Kubernetes' own build stamps it.
KUBE_VERSION  = $(shell awk '{ for (i = 1; i < NF; i++) if ($$i == "k8s.io/kubernetes") { print $$(i+1); exit } }' .ci/controlplane/go.mod)
KUBE_LDFLAGS  = -X k8s.io/component-base/version.gitVersion=$(KUBE_VERSION) \
  -X k8s.io/component-base/version.gitMajor=$(word 1,$(subst ., ,$(KUBE_VERSION:v%=%))) \
  -X k8s.io/component-base/version.gitMinor=$(word 2,$(subst ., ,$(KUBE_VERSION:v%=%)))
.PHONY: controlplane test-controlplane test-ipvs-property $(CONTROLPLANE)

controlplane: setup $(CONTROLPLANE) ## build bin/etcd, bin/kube-apiserver, bin/job-controller

bin/etcd:
	cd .ci/controlplane/etcd && $(GO) build -o ../../../$@ .
	@$(SUDO_OWNS) bin $@
bin/kube-apiserver:
	cd .ci/controlplane && $(GO) build -ldflags "$(KUBE_LDFLAGS)" -o ../../$@ k8s.io/kubernetes/cmd/kube-apiserver
	@$(SUDO_OWNS) bin $@
bin/job-controller:
	cd .ci/controlplane && $(GO) build -ldflags "$(KUBE_LDFLAGS)" -o ../../$@ ./job-controller
	@$(SUDO_OWNS) bin $@

# The control plane, the node agent standing in for kubelets, and svclab
# cluster run of a 4-cell matrix through them (needs root: the cells are lab
# runs on this machine). The agent runs each pod's container in the image
# (make image) with podman; SVCLAB_CLUSTER_IMAGE= (empty) runs them as
# local processes of bin/svclab instead.
CONTROLPLANE_PACKAGES := podman runc
SVCLAB_CLUSTER_IMAGE ?= $(IMAGE)
test-controlplane: controlplane ## the cluster integration test against a real kube-apiserver, pods in the image (needs root)
	@$(MAKE) --no-print-directory setup APT_PACKAGES="$(CONTROLPLANE_PACKAGES)"
	$(if $(SVCLAB_CLUSTER_IMAGE),@$(MAKE) --no-print-directory image)
	$(GO) vet -tags controlplane ./cmd/svclab ./lab/cluster/...
	SVCLAB_CLUSTER_IMAGE=$(SVCLAB_CLUSTER_IMAGE) SVCLAB_CONTROLPLANE_BIN=$(CURDIR)/bin $(GOINPATH) $(GO) test -count=1 -v -tags controlplane -timeout 30m \
	  -run 'TestClusterRunDryRunAcceptedByAPIServer|TestClusterRunFourCellsEndToEnd|TestClusterRunInterruptedEndToEnd|TestClusterAuditManifestsAcceptedByAPIServer' ./cmd/svclab
	$(GOINPATH) $(GO) test -count=1 ./lab/cluster/...

# The IPVS half of svclab migrate's random-cluster property test: the tracer's
# outcome of sampled paths against the kernel's, IPVS in the user-mode-linux
# guest (a guest boot and up to a minute, so not in make test; needs root).
test-ipvs-property: setup ## migrate's IPVS property test in the user-mode-linux guest (needs root; not in make test)
	SVCLAB_IPVS_PROPERTY=1 $(GOINPATH) $(GO) test -count=1 -v -run TestRandomClusterIPVSAgreesWithKernel ./lab/migrateverify

# The commands that need no privilege build and run off Linux too.
cross: setup
	GOOS=darwin $(GO) build -o /dev/null ./cmd/svclab
	GOOS=windows $(GO) build -o /dev/null ./cmd/svclab

demo: build
	./$(BIN) demo

lint: setup
	@test -z "$$($(GOFMT) -l $$($(GIT) ls-files '*.go'))" || { echo "gofmt needed:"; $(GOFMT) -l $$($(GIT) ls-files '*.go'); exit 1; }
	$(GO) vet ./...

bench: setup
	$(GO) test -run '^$$' -bench . -benchtime 3x ./sim/...
	$(GO) test -run '^$$' -bench . -benchtime 3x ./lab/traffic/

fuzz: setup
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./sim/iptables/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./sim/nftables/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./sim/scenario/
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime 30s ./sim/objects/
	$(GO) test -run '^$$' -fuzz FuzzObjectNames -fuzztime 30s ./cmd/svclab/

# The gate's baseline is only meaningful on the machine type it was recorded
# on (the gate refuses other CPU models and scenarios): record it on your own
# CI runner. The new run goes to BASELINE.new first, so a failed run keeps the
# old baseline.
BASELINE ?= results/baseline/ci-smoke
baseline: build ## record the gate's baseline on this machine (needs root)
	@test ! -e $(BASELINE).new || { echo "baseline: $(BASELINE).new exists; remove it first"; exit 2; }
	./$(BIN) run ci-smoke --out $(BASELINE).new
	rm -rf $(BASELINE) && mv $(BASELINE).new $(BASELINE)
	@echo "baseline: recorded $(BASELINE); commit it, then gate runs with ./$(BIN) gate $(BASELINE) NEW"

# Packages only `make bpf` needs: it regenerates lab/ebpf's committed BPF
# objects and Go bindings from lab/ebpf/bpf/*.c (nothing else needs clang).
BPF_PACKAGES := clang llvm libbpf-dev

bpf: ## regenerate lab/ebpf's BPF objects and bindings (installs clang if missing)
	@$(MAKE) --no-print-directory setup APT_PACKAGES="$(BPF_PACKAGES)"
	$(GOINPATH) $(GO) generate ./lab/ebpf/

clean-lab: build
	./$(BIN) cleanup

# The container image (README "Container image"): a Debian root filesystem
# from Debian's packages (mmdebstrap, no registry) with the tools the
# dataplanes need (APT_PACKAGES less curl and python3, which only tests and
# the check script use), svclab and the kube-proxy drivers, assembled by
# .ci/image (go-containerregistry) into a docker-archive that podman and
# docker load. SVCLAB_KUBE_PROXY_DRIVERS=DIR takes the drivers from DIR
# instead of building them (make kube-proxy takes minutes).
IMAGE          ?= svclab:latest
IMAGE_TAR      := bin/svclab-image.tar
IMAGE_ROOTFS   := bin/image-rootfs.tar
IMAGE_SUITE    ?= bookworm
IMAGE_MIRROR   ?= http://deb.debian.org/debian
IMAGE_PACKAGES := $(filter-out curl python3,$(APT_PACKAGES))
IMAGE_DRIVERS   = $(if $(SVCLAB_KUBE_PROXY_DRIVERS),$(KP_VERSIONS:%=$(SVCLAB_KUBE_PROXY_DRIVERS)/kube-proxy-driver-%),$(KP_DRIVERS))
comma := ,
.PHONY: image

image: build $(if $(SVCLAB_KUBE_PROXY_DRIVERS),,kube-proxy) $(IMAGE_ROOTFS) ## the container image: bin/svclab-image.tar, loaded into podman if present
	cd .ci/image && $(GO) build -o ../../bin/image-assemble .
	bin/image-assemble -rootfs $(IMAGE_ROOTFS) -tag $(IMAGE) -revision $(COMMIT) -o $(IMAGE_TAR) $(BIN) $(IMAGE_DRIVERS)
	@ls -l $(IMAGE_TAR) | awk '{printf "image: %s, %.0f MB (docker-archive)\n", $$NF, $$5/1e6}'
	@if command -v podman >/dev/null; then podman load -q -i $(IMAGE_TAR) && podman image ls $(IMAGE); \
	 else echo "image: load it with podman load -i $(IMAGE_TAR) or docker load -i $(IMAGE_TAR)"; fi

# The root filesystem, rebuilt when the Makefile (the package list) changes.
# Documentation, manuals and locales are left out (copyright files stay).
$(IMAGE_ROOTFS): Makefile
	@$(MAKE) --no-print-directory setup APT_PACKAGES=mmdebstrap
	@mkdir -p bin
	mmdebstrap --quiet --variant=minbase --include=$(subst $(eval) ,$(comma),$(IMAGE_PACKAGES)) \
	  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
	  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
	  --dpkgopt='path-exclude=/usr/share/info/*' \
	  $(IMAGE_SUITE) $@.part.tar $(IMAGE_MIRROR) && mv $@.part.tar $@
