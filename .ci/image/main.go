// Command image assembles svclab's container image without a registry or a
// container engine: a Debian root filesystem (a tar from mmdebstrap) as the
// first layer, svclab and the kube-proxy drivers in /usr/local/bin as the
// second, and a config whose entrypoint is svclab. It writes a
// docker-archive tarball, which `podman load` and `docker load` read
// (`make image` runs it; see the README's "Container image").
//
// Usage:
//
//	go run . -rootfs ROOTFS.tar -tag svclab:VERSION -o IMAGE.tar [-created RFC3339] BINARY...
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// binDir is where the binaries go: svclab looks for its kube-proxy drivers
// next to itself.
const binDir = "usr/local/bin"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	rootfs := fs.String("rootfs", "", "the root filesystem tar (mmdebstrap's output)")
	tag := fs.String("tag", "svclab:dev", "the image's name and tag")
	out := fs.String("o", "", "the docker-archive tarball to write")
	created := fs.String("created", "", "the image's creation time, RFC 3339 (default: the Unix epoch, for reproducible images)")
	revision := fs.String("revision", "", "the source commit, recorded as the org.opencontainers.image.revision label")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rootfs == "" || *out == "" || fs.NArg() == 0 {
		return fmt.Errorf("usage: image -rootfs ROOTFS.tar -o IMAGE.tar [-tag NAME:TAG] BINARY...")
	}
	when := time.Unix(0, 0).UTC()
	if *created != "" {
		t, err := time.Parse(time.RFC3339, *created)
		if err != nil {
			return fmt.Errorf("-created %q: %w (want RFC 3339, e.g. 2026-12-02T01:40:00Z)", *created, err)
		}
		when = t.UTC()
	}
	ref, err := name.NewTag(*tag)
	if err != nil {
		return fmt.Errorf("-tag %q: %w", *tag, err)
	}
	img, err := assemble(*rootfs, fs.Args(), when, *revision)
	if err != nil {
		return err
	}
	if err := tarball.WriteToFile(*out, ref, img); err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	return nil
}

// assemble stacks the root filesystem and the binaries' layer and sets the
// config.
func assemble(rootfs string, binaries []string, created time.Time, revision string) (v1.Image, error) {
	base, err := tarball.LayerFromFile(rootfs)
	if err != nil {
		return nil, fmt.Errorf("root filesystem %s: %w", rootfs, err)
	}
	bins, err := binaryLayer(binaries, created)
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(empty.Image, base, bins)
	if err != nil {
		return nil, fmt.Errorf("stack layers: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = "amd64", "linux"
	cf.Created = v1.Time{Time: created}
	cf.Config.Entrypoint = []string{"/" + binDir + "/svclab"}
	cf.Config.Cmd = []string{"help"}
	cf.Config.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	cf.Config.WorkingDir = "/work"
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":    "svclab",
		"org.opencontainers.image.revision": revision,
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("set config: %w", err)
	}
	return mutate.CreatedAt(img, v1.Time{Time: created})
}

// binaryLayer is a layer holding each binary, mode 0755, in binDir, and an
// empty /work for the results.
func binaryLayer(binaries []string, created time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, dir := range []string{"usr/", "usr/local/", binDir + "/", "work/"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: 0o755, ModTime: created}); err != nil {
			return nil, fmt.Errorf("layer directory %s: %w", dir, err)
		}
	}
	for _, b := range binaries {
		if err := addFile(tw, b, path.Join(binDir, filepath.Base(b)), created); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("binaries layer: %w", err)
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	})
}

func addFile(tw *tar.Writer, src, dst string, created time.Time) error {
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("binary %s: %w (build it first: make build kube-proxy)", src, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("binary %s: %w", src, err)
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: dst, Mode: 0o755, Size: st.Size(), ModTime: created}); err != nil {
		return fmt.Errorf("layer entry %s: %w", dst, err)
	}
	if _, err := io.Copy(tw, f); err != nil {
		return fmt.Errorf("copy %s into the layer: %w", src, err)
	}
	return nil
}
