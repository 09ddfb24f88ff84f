# svclab: two commands set everything up on a fresh machine:
#   make demo   # builds, then runs the embedded default scenario (needs root)
#   make test   # the whole test suite, privileged tests included (needs root)

GO        ?= go
BIN       := bin/svclab
COMMIT    := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -X github.com/svclab/svclab/lab/runner.Commit=$(COMMIT)
# Debian packages the lab, its tests and the IPVS guest need.
APT_PACKAGES := iptables nftables iproute2 conntrack ipset ipvsadm kmod user-mode-linux procps curl python3
# -p 1: the privileged tests measure real traffic; running packages one at a time
# keeps them from competing for the 2 CPUs (and from flaking on timing).
GOTEST_FLAGS ?= -count=1 -p 1 -timeout 20m

.PHONY: setup build test cross demo lint bench clean-lab fuzz bpf baseline kube-proxy test-kube-proxy

setup: ## install Debian packages (idempotent) and Go modules
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "setup: installing$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "setup: need root to install$$missing (run: sudo make setup)"; exit 1; fi; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; }; \
	fi
	@$(GO) mod download

build: setup
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/svclab

test: setup lint cross kube-proxy
	$(GO) test $(GOTEST_FLAGS) ./...
	@mkdir -p bin
	@$(foreach v,$(KP_VERSIONS),$(call kp_test,$(v)))

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

# kp_test runs the kubeproxy module's tests (the conformance suite) against
# kube-proxy version $(1), printing the summary lines (log: bin/kubeproxy-test-$(1).log).
kp_test = echo "go test (kubeproxy, kube-proxy v$(1)) $(call kp_flags,$(1)) ./..."; \
	  start=$$(date +%s); \
	  (cd kubeproxy && CGO_ENABLED=0 $(GO) test $(GOTEST_FLAGS) -v $(call kp_flags,$(1)) ./... > ../bin/kubeproxy-test-$(1).log 2>&1); s=$$?; \
	  grep -E 'clusters, [0-9]+ syncs|^(ok|FAIL|--- FAIL)' bin/kubeproxy-test-$(1).log; \
	  echo "kube-proxy v$(1): $$(( $$(date +%s) - start )) s"; \
	  [ $$s = 0 ] || { tail -50 bin/kubeproxy-test-$(1).log; exit $$s; };

test-kube-proxy: kube-proxy ## the kubeproxy module's tests for each of KP_VERSIONS
	@mkdir -p bin
	@$(foreach v,$(KP_VERSIONS),$(call kp_test,$(v)))

# The commands that need no privilege build and run off Linux too.
cross: setup
	GOOS=darwin $(GO) build -o /dev/null ./cmd/svclab
	GOOS=windows $(GO) build -o /dev/null ./cmd/svclab

demo: build
	./$(BIN) demo

lint: setup
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

bench: setup
	$(GO) test -run '^$$' -bench . -benchtime 3x ./sim/...
	$(GO) test -run '^$$' -bench . -benchtime 3x ./lab/traffic/

fuzz: setup
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./sim/iptables/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./sim/nftables/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./sim/scenario/

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
	$(GO) generate ./lab/ebpf/

clean-lab: build
	./$(BIN) cleanup
