package uml

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeModuleDir writes a module tree with the given modules.dep and
// modules.builtin lines.
func fakeModuleDir(t *testing.T, dep, builtin string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"modules.dep": dep, "modules.builtin": builtin} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadModulesAndDescribe(t *testing.T) {
	dir := fakeModuleDir(t,
		"kernel/net/netfilter/ipvs/ip_vs.ko: kernel/net/netfilter/nf_conntrack.ko\n"+
			"kernel/net/netfilter/ipvs/ip_vs_rr.ko: kernel/net/netfilter/ipvs/ip_vs.ko\n"+
			"kernel/net/netfilter/ipvs/ip_vs_mh.ko.xz: kernel/net/netfilter/ipvs/ip_vs.ko\n"+
			"kernel/net/netfilter/nf_conntrack.ko:\n"+
			"kernel/drivers/net/veth.ko:\n",
		"kernel/drivers/net/dummy.ko\n")
	mods, err := readModules(dir)
	if err != nil {
		t.Fatal(err)
	}
	info := Info{modules: mods}
	info.describeModules()
	info.readConfig("#\nCONFIG_IP_NF_IPTABLES=m\n# CONFIG_NF_TABLES_IPV4 is not set\n")
	want := Info{
		IPVSModules: []string{"ip_vs", "ip_vs_mh", "ip_vs_rr"}, Schedulers: []string{"rr", "mh"},
		Veth: true, Dummy: true, Conntrack: true, IPTablesLegacy: true, modules: mods,
	}
	if !reflect.DeepEqual(info, want) {
		t.Errorf("info = %+v\nwant %+v", info, want)
	}
	if !info.HasIPVS() || !info.HasModule("nf-conntrack") || info.HasModule("ip_vs_wrr") {
		t.Errorf("HasIPVS %v, nf-conntrack %v, ip_vs_wrr %v; want true, true, false",
			info.HasIPVS(), info.HasModule("nf-conntrack"), info.HasModule("ip_vs_wrr"))
	}
}

func TestReadModulesMissingTree(t *testing.T) {
	if _, err := readModules(filepath.Join(t.TempDir(), "6.1.0")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("readModules of a missing dir = %v, want ErrNotExist", err)
	}
}

func TestModulesToLoad(t *testing.T) {
	info := Info{Version: "6.1.0", ModuleDir: "/m", modules: map[string]bool{"ip_vs": true, "veth": true, "dummy": true}}
	tests := []struct {
		name      string
		requested []string
		want      []string
		wantErr   string
	}{
		{"defaults the kernel has", nil, []string{"ip_vs", "veth", "dummy"}, ""},
		{"requested", []string{"veth"}, []string{"veth"}, ""},
		{"requested but missing", []string{"veth", "ip_vs_mh", "sctp"}, nil, "no module ip_vs_mh, sctp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := modulesToLoad(tt.requested, info)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("modulesToLoad = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestAvailableWithoutKernel: with no `linux` on PATH the error names the
// package to install.
func TestAvailableWithoutKernel(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Available()
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "apt-get install -y user-mode-linux") {
		t.Fatalf("Available() = %v, want ErrNotInstalled naming apt-get install -y user-mode-linux", err)
	}
}

// TestGuestInitRefusesOnHost: GuestInit mounts over /tmp and powers off, so
// outside a guest (not pid 1, another kernel) it must refuse before doing
// anything.
func TestGuestInitRefusesOnHost(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), configFile)
	if err := writeJSON(cfgPath, guestConfig{KernelRelease: kernelRelease(), StateDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	err := GuestInit([]string{cfgPath})
	if err == nil || !strings.Contains(err.Error(), "must run as pid 1") {
		t.Fatalf("GuestInit on the host = %v, want a refusal", err)
	}
	if err := GuestInit(nil); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Fatalf("GuestInit() = %v, want usage", err)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"/tmp/a b": `'/tmp/a b'`, "it's": `'it'\''s'`, "": `''`} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestTailBufferKeepsLastLines(t *testing.T) {
	tb := &tailBuffer{max: 70} // of 78 bytes: cuts "boot line one" short
	for _, s := range []string{"boot line one\r\n", "boot line two\r\n", " [<6069f4e1>] dump_stack+0x1a\n", "Kernel panic - x\n"} {
		tb.Write([]byte(s))
	}
	if got, want := tb.lastLines(2), "boot line two\nKernel panic - x"; got != want {
		t.Errorf("lastLines(2) = %q, want %q", got, want)
	}
	if got := tb.lastLines(10); strings.Contains(got, "one") {
		t.Errorf("lastLines(10) = %q, want the cut line dropped", got)
	}
	if len(tb.buf) > 70 {
		t.Errorf("buffer holds %d bytes, max 70", len(tb.buf))
	}
}

func TestProcStateOfSelf(t *testing.T) {
	state, pgrp, ok := procState(os.Getpid())
	if !ok || state == "" || pgrp <= 0 {
		t.Fatalf("procState(self) = %q, %d, %v", state, pgrp, ok)
	}
}
