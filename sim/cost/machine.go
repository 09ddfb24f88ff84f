package cost

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/iptables"
)

// MachineFile is the file of a calibration directory (svclab plan
// calibrate) that holds the identity of the machine it was measured on.
const MachineFile = "machine.json"

// Cache is one CPU cache level as the machine reports it.
type Cache struct {
	Level int    `json:"level"`
	Type  string `json:"type"` // Data, Instruction or Unified
	Bytes int64  `json:"bytes"`
}

// Machine identifies the machine a calibration was measured on, or the one
// a plan is made for: what decides whether costs carry over.
type Machine struct {
	CPUModel string            `json:"cpu_model"`
	CPUs     int               `json:"cpus,omitempty"`
	Kernel   string            `json:"kernel,omitempty"`
	Tools    map[string]string `json:"tools,omitempty"`
	Caches   []Cache           `json:"caches,omitempty"`
	// Label names the machine type in words (the embedded default's).
	Label string `json:"label,omitempty"`
	// RecentHashBuckets is xt_recent's ip_list_hash_size on the machine
	// (0: not read, xt_recent's default assumed), which sizes the kernel
	// memory of each list ClientIP affinity makes (RecentListBytes).
	RecentHashBuckets int `json:"xt_recent_hash_buckets,omitempty"`
}

// RecentListBytes is the kernel memory one xt_recent list takes on the
// machine (iptables.RecentListBytes of its hash buckets).
func (m Machine) RecentListBytes() int64 { return iptables.RecentListBytes(m.RecentHashBuckets) }

// String is one line: the CPU, its caches and the kernel.
func (m Machine) String() string {
	s := fmt.Sprintf("CPU %s", m.CPUModel)
	if m.CPUs > 0 {
		s += fmt.Sprintf(" × %d", m.CPUs)
	}
	if c := m.CacheText(); c != "" {
		s += " (" + c + ")"
	}
	if m.Kernel != "" {
		s += ", kernel " + strings.Fields(m.Kernel)[0]
	}
	return s
}

// CacheText lists the data and unified caches, e.g. "L1d 48 KiB, L2 1 MiB".
func (m Machine) CacheText() string {
	var parts []string
	for _, c := range m.Caches {
		if c.Type == "Instruction" {
			continue
		}
		name := fmt.Sprintf("L%d", c.Level)
		if c.Type == "Data" {
			name += "d"
		}
		parts = append(parts, name+" "+sizeText(c.Bytes))
	}
	return strings.Join(parts, ", ")
}

func sizeText(b int64) string {
	switch {
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}

// LargestCache is the size of the last-level data or unified cache (0 when
// unknown).
func (m Machine) LargestCache() int64 {
	var n int64
	for _, c := range m.Caches {
		if c.Type != "Instruction" {
			n = max(n, c.Bytes)
		}
	}
	return n
}

// Mismatch says how a calibration's machine differs from this one: Other is
// set when the CPU model differs (its costs do not carry over); Notes name
// smaller differences (kernel, tool versions) that may shift them.
type Mismatch struct {
	Other bool     `json:"other_machine"`
	Notes []string `json:"notes,omitempty"`
}

// Compare compares a calibration's machine (m) with the machine the plan
// is for (here).
func (m Machine) Compare(here Machine) Mismatch {
	var out Mismatch
	if m.CPUModel != here.CPUModel {
		out.Other = true
		out.Notes = append(out.Notes, fmt.Sprintf("CPU %q, this machine %q", m.CPUModel, here.CPUModel))
	}
	if m.CPUs != 0 && here.CPUs != 0 && m.CPUs != here.CPUs {
		out.Notes = append(out.Notes, fmt.Sprintf("%d CPUs, this machine %d", m.CPUs, here.CPUs))
	}
	if m.Kernel != "" && here.Kernel != "" && strings.Fields(m.Kernel)[0] != strings.Fields(here.Kernel)[0] {
		out.Notes = append(out.Notes, fmt.Sprintf("kernel %s, this machine %s", strings.Fields(m.Kernel)[0], strings.Fields(here.Kernel)[0]))
	}
	if m.RecentHashBuckets != 0 && here.RecentHashBuckets != 0 && m.RecentHashBuckets != here.RecentHashBuckets {
		out.Notes = append(out.Notes, fmt.Sprintf("xt_recent ip_list_hash_size %d, this machine %d (an affinity list's kernel memory is priced with the calibration's)",
			m.RecentHashBuckets, here.RecentHashBuckets))
	}
	tools := make([]string, 0, len(m.Tools))
	for t := range m.Tools {
		tools = append(tools, t)
	}
	slices.Sort(tools)
	for _, t := range tools {
		if v, ok := here.Tools[t]; ok && v != m.Tools[t] {
			out.Notes = append(out.Notes, fmt.Sprintf("%s %q, this machine %q", t, m.Tools[t], v))
		}
	}
	return out
}

// ReadMachine reads a calibration directory's machine.json; a directory
// without one (a plain sweep run) gives ok false and no error.
func ReadMachine(dir string) (m Machine, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, MachineFile))
	if errors.Is(err, fs.ErrNotExist) {
		return Machine{}, false, nil
	}
	if err != nil {
		return Machine{}, false, fmt.Errorf("calibration %s: %w", dir, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return Machine{}, false, fmt.Errorf("calibration %s: %s: %w (write it again with svclab plan calibrate)", dir, MachineFile, err)
	}
	return m, true, nil
}

// machineOf is the machine a run's meta names (no caches).
func machineOf(s Source) Machine {
	return Machine{CPUModel: s.CPU, CPUs: s.CPUs, Kernel: s.Kernel, Tools: s.Tools}
}

// ErrOtherMachine: the calibration was measured on another CPU model.
var ErrOtherMachine = errors.New("the calibration was measured on another machine")

// CheckMachine compares the model's calibration machine with here, the
// machine the plan is for (nil: unknown). Another CPU model is an error
// wrapping ErrOtherMachine, unless allow is set or the calibration is the
// embedded default; then the model records the mismatch and warns that it
// extrapolates across machines. Smaller differences become warnings.
func (m *Model) CheckMachine(here *Machine, allow bool) error {
	if here == nil {
		m.Warnings = append(m.Warnings, "this machine's identity is unknown (not Linux): cannot tell whether the calibration's costs carry over")
		return nil
	}
	mm := m.Source.Machine.Compare(*here)
	if !mm.Other {
		for _, n := range mm.Notes {
			m.Warnings = append(m.Warnings, "calibrated on the same CPU model, but: "+n)
		}
		return nil
	}
	if !allow && m.Source.Name != DefaultSourceName {
		return fmt.Errorf("calibration %s: %w (%s): run svclab plan calibrate on this machine, or pass --allow-other-machine to extrapolate across machines",
			m.Source.Name, ErrOtherMachine, strings.Join(mm.Notes, "; "))
	}
	m.Across = &mm
	m.Warnings = append(m.Warnings, "extrapolating across machines: the calibration's "+strings.Join(mm.Notes, "; ")+
		"; per-rule costs differed by more than 2× between two CPU models here; calibrate this node with svclab plan calibrate")
	return nil
}
