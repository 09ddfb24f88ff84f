package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/svclab/svclab/sim/audit"
	"github.com/svclab/svclab/sim/cluster"
)

// runClusterAuditNode is what a `svclab cluster audit` pod runs: svclab
// audit with its arguments, as JSON, packed with its exit status (and
// error) on stdout between the markers a cluster run's cells use, for the
// command to read from the pod's log; then it waits for SIGTERM, as a
// DaemonSet restarts a pod whose container exits.
func runClusterAuditNode(args []string, stdout, stderr io.Writer) error {
	var out, msg bytes.Buffer
	err := runAudit(append(append([]string(nil), args...), "--format", "json"), &out, stderr)
	a := cluster.NodeAudit{Node: os.Getenv(cluster.NodeEnv), Exit: exitCode(err, commands["audit"], &msg)}
	a.Error = strings.TrimSpace(msg.String())
	if out.Len() > 0 {
		a.Report = &audit.Report{}
		if jerr := json.Unmarshal(out.Bytes(), a.Report); jerr != nil {
			a.Report, a.Exit, a.Error = nil, 3, "svclab audit's JSON: "+jerr.Error()
		}
	}
	if a.Error != "" {
		io.WriteString(stderr, a.Error+"\n")
	}
	if err := cluster.PackNodeAudit(stdout, a); err != nil {
		return err
	}
	auditNodeWait()
	return nil
}

// auditNodeWait blocks until SIGTERM or SIGINT (the pod is deleted).
var auditNodeWait = func() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
}
