package host

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/svclab/svclab/sim/dataplane"
)

// WriteText writes the report for people: the host kernel's features, the
// tools, the user-mode-linux kernel, where each dataplane runs, and what to
// fix.
func (r Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "host kernel %s\n", r.HostKernel)
	for _, c := range r.Kernel {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.Status, c.Name, c.Detail)
	}
	fmt.Fprintln(tw, "\ntools")
	for _, t := range r.Tools {
		detail := t.Path + "  " + t.Version
		if t.Status != OK {
			detail = "package " + t.Package
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Status, t.Name, strings.TrimSpace(detail))
	}
	if len(r.BPF) > 0 {
		fmt.Fprintln(tw, "\nbpf (the "+joinAnd(bpfDataplanes())+" dataplanes)")
		for _, f := range r.BPF {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Status, f.Name, f.Detail)
		}
	}
	if len(r.Drivers) > 0 {
		fmt.Fprintln(tw, "\nkube-proxy drivers (--engine kube-proxy)")
		for _, d := range r.Drivers {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", d.Status, d.Name, strings.TrimSpace(d.Path+"  "+d.Version))
		}
	}
	fmt.Fprintln(tw, "\nuser-mode-linux")
	writeUML(tw, r.UML)
	fmt.Fprintln(tw, "\ndataplanes")
	for _, d := range r.Dataplanes {
		fmt.Fprintf(tw, "  %s\t%s\n", d.Name, where(d))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Fixes) > 0 {
		fmt.Fprintln(w, "\nto fix")
		for _, f := range r.Fixes {
			fmt.Fprintf(w, "  - %s\n", f)
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

func writeUML(w io.Writer, u UML) {
	if u.Info == nil {
		fmt.Fprintf(w, "  %s\tkernel\t%s\n", u.Status, u.Detail)
		return
	}
	i := u.Info
	fmt.Fprintf(w, "  %s\tkernel\t%s (%s), modules in %s\n", u.Status, i.Version, i.Binary, i.ModuleDir)
	ipvs := Status(Missing)
	if u.IPVS {
		ipvs = OK
	}
	detail := "schedulers " + joinWords(i.Schedulers)
	if u.Detail != "" {
		detail += "; " + u.Detail
	}
	fmt.Fprintf(w, "  %s\tipvs\t%s\n", ipvs, detail)
	for _, f := range []struct {
		name string
		ok   bool
	}{{"veth", i.Veth}, {"dummy", i.Dummy}, {"ipset", i.IPSet}, {string(dataplane.FeatureIPTablesLegacy), i.IPTablesLegacy}, {"nftables (ip family)", i.NFTablesIPv4}} {
		fmt.Fprintf(w, "  %s\t%s\n", statusOf(f.ok), f.name)
	}
}

// where says where a dataplane runs.
func where(d Dataplane) string {
	switch {
	case d.Host && d.Guest:
		return "host kernel (also in the user-mode-linux guest)"
	case d.Host:
		return "host kernel"
	case d.Guest:
		return "user-mode-linux guest only"
	}
	return "nowhere: see the fixes below"
}

func statusOf(ok bool) Status {
	if ok {
		return OK
	}
	return Missing
}

func joinWords(words []string) string {
	if len(words) == 0 {
		return "none"
	}
	return strings.Join(words, " ")
}
