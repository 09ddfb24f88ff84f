package cluster

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/svclab/svclab/sim/audit"
)

// NodeAuditFile is the file a `svclab cluster audit` pod packs in its log.
const NodeAuditFile = "node-audit.json"

// NodeAudit is what one node's pod of `svclab cluster audit` reports: the
// audit's exit status and, when it ran, its report; when it could not
// (bad input, a tool missing on the node), the reason.
type NodeAudit struct {
	Node string `json:"node"`
	// Exit is `svclab audit`'s exit status: 0 clean, 1 findings, 2 bad
	// input, 3 the audit could not be made.
	Exit   int           `json:"exit"`
	Error  string        `json:"error,omitempty"`
	Report *audit.Report `json:"report,omitempty"`
}

// PackNodeAudit writes a node's audit to w (a pod's log) between the
// markers Pack uses, for ReadNodeAudit.
func PackNodeAudit(w io.Writer, a NodeAudit) error {
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("node %s audit: %w", a.Node, err)
	}
	return PackFile(w, NodeAuditFile, append(b, '\n'))
}

// ReadNodeAudit finds the node's audit in its pod's log; ErrNoArchive
// when the pod has not printed it (yet).
func ReadNodeAudit(log io.Reader) (NodeAudit, error) {
	var a NodeAudit
	b, err := ReadFile(log, NodeAuditFile)
	if err != nil {
		return a, err
	}
	// Fields a newer image adds are ignored: the image and this command
	// may be of different releases.
	if err := json.Unmarshal(b, &a); err != nil {
		return a, fmt.Errorf("%s: %w", NodeAuditFile, err)
	}
	return a, nil
}
