package ebpf

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	cebpf "github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/features"
	"github.com/cilium/ebpf/link"

	"github.com/svclab/svclab/lab/netns"
)

// Feature is one BPF facility and whether the kernel offers it.
type Feature struct {
	Name   string // "btf", "jit", "tcx", "clsact", "cgroup-connect4", "dataplane"
	OK     bool
	Detail string // what was found, or why not
}

// Capabilities is what Probe found, in a fixed order.
type Capabilities []Feature

// Has reports whether the named feature was found.
func (c Capabilities) Has(name string) bool {
	for _, f := range c {
		if f.Name == name {
			return f.OK
		}
	}
	return false
}

// Probe checks what the kernel supports for the eBPF dataplanes, for
// `svclab doctor`: kernel BTF, the JIT, tcx and clsact attachment (tried on
// the loopback of the scratch namespace ns, which the caller owns), a
// cgroup/connect4 attachment (to a cgroup it creates under "svl-" and
// removes), and whether svclab's own programs pass the verifier. Nothing is
// left behind.
func Probe(ns string) Capabilities {
	return Capabilities{
		feature("btf", probeBTF),
		feature("jit", probeJIT),
		feature("tcx", func() (string, error) { return probeTC(ns, AttachTCX) }),
		feature("clsact", func() (string, error) { return probeTC(ns, AttachClsact) }),
		feature("cgroup-connect4", probeConnect4),
		feature("dataplane", probeLoad),
	}
}

func feature(name string, probe func() (string, error)) Feature {
	detail, err := probe()
	if err != nil {
		return Feature{Name: name, Detail: err.Error()}
	}
	return Feature{Name: name, OK: true, Detail: detail}
}

func probeBTF() (string, error) {
	if _, err := btf.LoadKernelSpec(); err != nil {
		return "", fmt.Errorf("no kernel BTF: %w", err)
	}
	return "/sys/kernel/btf/vmlinux", nil
}

func probeJIT() (string, error) {
	b, err := os.ReadFile("/proc/sys/net/core/bpf_jit_enable")
	if err != nil {
		return "", fmt.Errorf("read bpf_jit_enable: %w", err)
	}
	v := strings.TrimSpace(string(b))
	if v == "0" {
		return "", errors.New("bpf_jit_enable is 0 (interpreter only)")
	}
	return "bpf_jit_enable=" + v, nil
}

// passProgram is a minimal program of type t that lets everything through.
func passProgram(t cebpf.ProgramType, at cebpf.AttachType, ret int32) (*cebpf.Program, error) {
	return cebpf.NewProgram(&cebpf.ProgramSpec{
		Type: t, AttachType: at, License: "Dual BSD/GPL",
		Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, ret), asm.Return()},
	})
}

// probeTC attaches a pass-through program to lo in ns by mode and detaches it.
func probeTC(ns string, mode AttachMode) (string, error) {
	if err := features.HaveProgramType(cebpf.SchedCLS); err != nil {
		return "", err
	}
	if ns == "" || !netns.Exists(ns) {
		return "", fmt.Errorf("no scratch netns %q to attach in", ns)
	}
	prog, err := passProgram(cebpf.SchedCLS, 0, 0)
	if err != nil {
		return "", fmt.Errorf("load tc program: %w", err)
	}
	defer prog.Close()
	lo := Veth{Netns: ns, Name: "lo"}
	var a *attachment
	if mode == AttachTCX {
		a, err = attachTCX(lo, prog, prog)
	} else {
		a, err = attachClsact(lo, prog, prog)
	}
	if err != nil {
		return "", err
	}
	if err := a.detach(); err != nil {
		return "", err
	}
	if mode == AttachTCX {
		return "tcx ingress and egress links on lo", nil
	}
	return "clsact qdisc with cls_bpf direct-action filters on lo", nil
}

// probeConnect4 attaches a pass-through connect4 program to a fresh cgroup.
func probeConnect4() (string, error) {
	if err := features.HaveProgramType(cebpf.CGroupSockAddr); err != nil {
		return "", err
	}
	var b [3]byte
	_, _ = rand.Read(b[:])
	cg, err := makeCgroup(PrefixBase + "probe" + hex.EncodeToString(b[:]))
	if err != nil {
		return "", err
	}
	defer func() { _ = cg.remove() }()
	prog, err := passProgram(cebpf.CGroupSockAddr, cebpf.AttachCGroupInet4Connect, 1)
	if err != nil {
		return "", fmt.Errorf("load connect4 program: %w", err)
	}
	defer prog.Close()
	l, err := link.AttachCgroup(link.CgroupOptions{Path: cg.path, Attach: cebpf.AttachCGroupInet4Connect, Program: prog})
	if err != nil {
		return "", fmt.Errorf("attach connect4 to %s: %w", cg.path, err)
	}
	if err := l.Close(); err != nil {
		return "", err
	}
	return "cgroup2 at " + filepath.Dir(cg.path), nil
}

// probeLoad loads svclab's programs with small maps: the verifier accepts them.
func probeLoad() (string, error) {
	objs, err := load(Capacity{ServicePorts: 16, Backends: 16, Flows: 16, Affinity: 16})
	if err != nil {
		return "", err
	}
	defer objs.Close()
	return "svc_ingress, svc_egress and sock_connect4 pass the verifier", nil
}
