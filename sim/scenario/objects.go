package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"path"
	"path/filepath"
	"strings"

	"github.com/svclab/svclab/scenarios"
	"github.com/svclab/svclab/sim/apicheck"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/objects"
)

// loadedObjects is a decoded file of Kubernetes objects and its bytes.
type loadedObjects struct {
	objects *objects.Objects
	raw     []byte
}

// parseObjects makes a scenario of a file of Kubernetes objects: its
// services, the local node it names, every other setting defaulted.
func parseObjects(source string, raw []byte, overrides []override) (*Scenario, error) {
	o, err := objects.Decode(source, raw)
	if err != nil {
		return nil, objectsError(err)
	}
	f := file{loaded: &loadedObjects{objects: o, raw: raw}}
	return finish(source, raw, f, overrides)
}

// loadReferenced reads the file cluster.objects names, relative to the
// scenario's own file (or among the embedded scenarios).
func loadReferenced(source string, raw []byte, name string) (*loadedObjects, error) {
	at := func(msg, hint string) error {
		return locateProblem(source, raw, fieldAt("cluster", "objects")(msg, hint), nil)
	}
	var data []byte
	var where string
	var err error
	if strings.HasPrefix(source, "embedded:") {
		where = path.Clean(name)
		data, err = fs.ReadFile(scenarios.FS, where)
		if err == nil && len(data) > MaxObjectsFileSize {
			err = tooLarge(where, int64(len(data)), MaxObjectsFileSize)
		}
	} else {
		where = name
		if !filepath.IsAbs(name) {
			where = filepath.Join(filepath.Dir(source), name)
		}
		data, err = readLimited(where)
	}
	var fe *FieldError
	switch {
	case errors.As(err, &fe):
		return nil, err
	case err != nil:
		return nil, at("cannot read "+where+": "+err.Error(), "a path relative to the scenario file, e.g. objects: cluster.yaml")
	}
	o, err := objects.Decode(where, data)
	if err != nil {
		return nil, at(objectsError(err).Error(), "")
	}
	return &loadedObjects{objects: o, raw: data}, nil
}

// objectsError reports an objects error as the FieldError every scenario
// error is: "file: Kind ns/name: field: message (hint)".
func objectsError(err error) error {
	var oe *objects.Error
	if !errors.As(err, &oe) {
		return err
	}
	field := oe.Field
	if oe.Kind != "" {
		obj := oe.Kind
		if oe.Object != "" {
			obj += " " + apicheck.Show(oe.Object)
		}
		field = strings.TrimSuffix(obj+": "+field, ": ")
	}
	return &FieldError{File: oe.File, Field: field, Msg: oe.Msg, Hint: oe.Hint}
}

// objectServices returns the objects' services (nil without objects).
func (f *file) objectServices() model.Slice {
	if f.loaded == nil {
		return nil
	}
	return f.loaded.objects.Services
}

// applyObjects adds the objects' services before the explicit ones and
// sets the local node (cluster.nodeName, else the objects' choice).
func (s *Scenario) applyObjects(f *file) {
	if f.loaded == nil {
		if f.Cluster.NodeName != "" {
			s.cluster.NodeName = f.Cluster.NodeName
		}
		return
	}
	o := f.loaded.objects
	o.LocalNode(f.Cluster.NodeName).Apply(&s.cluster)
	svcs := make(model.Slice, 0, len(o.Services)+len(s.explicit))
	svcs = append(svcs, o.Services...)
	s.explicit = append(svcs, s.explicit...)
	s.objectsRaw = f.loaded.raw
	s.Objects = o
}

// validateObjects checks the objects against the scenario: a lab run makes
// every endpoint a pod, so a fairness run is held to MaxLabPods, and
// cluster.nodeName must be a DNS-1123 subdomain.
func validateObjects(f *file) []pathError {
	var errs []pathError
	if n := f.Cluster.NodeName; n != "" {
		if m := apicheck.ObjectName(n); m != "" {
			errs = append(errs, fieldAt("cluster", "nodeName")("a node name "+m, "a DNS-1123 subdomain such as node-1"))
		}
	}
	if f.loaded == nil || f.Fairness == nil || f.Lab.AllowLargeLabs {
		return errs
	}
	pods := map[netip.Addr]bool{}
	for _, s := range f.loaded.objects.Services {
		for _, e := range s.Endpoints {
			pods[e.IP] = true
		}
	}
	if len(pods) > MaxLabPods {
		errs = append(errs, fieldAt("cluster", "objects")(fmt.Sprintf("%d distinct endpoint IPs: a fairness run makes each a pod, more than the %d this machine is known to hold", len(pods), MaxLabPods),
			"set lab.allowLargeLabs: true to build it anyway, or render the objects without a fairness: section"))
	}
	return errs
}
