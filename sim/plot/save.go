package plot

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"github.com/svclab/svclab/sim/atomicfile"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Size and resolution of saved plots: 8×5 inches, PNG at 144 dots per inch
// (1152×720 pixels).
const (
	Width  = 8 * vg.Inch
	Height = 5 * vg.Inch
	DPI    = 144
)

// margin keeps titles and tick labels off the image's edges.
const margin = 10 * vg.Millimeter / 4

// Save writes p as pathWithoutExt.png and pathWithoutExt.svg, creating the
// directory if needed (under sudo, what it creates belongs to the invoking
// user: atomicfile.RealDir, atomicfile.Write), and returns the two paths (PNG first).
func Save(p *gplot.Plot, pathWithoutExt string) ([]string, error) {
	if err := atomicfile.RealDir(filepath.Dir(pathWithoutExt)); err != nil {
		return nil, fmt.Errorf("plot %s: %w", pathWithoutExt, err)
	}
	var paths []string
	for _, format := range []string{"png", "svg"} {
		path := pathWithoutExt + "." + format
		var buf bytes.Buffer
		if err := Encode(&buf, p, format); err != nil {
			return paths, fmt.Errorf("draw plot %s: %w", path, err)
		}
		if err := atomicfile.Write(path, buf.Bytes(), 0o644); err != nil {
			return paths, fmt.Errorf("plot: %w", err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// Encode draws p at Width×Height in format "png" or "svg" to w. SVG output
// is deterministic; PNG pixels depend on font rasterisation.
func Encode(w io.Writer, p *gplot.Plot, format string) error {
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(Width, Height), vgimg.UseDPI(DPI))}
	case "svg":
		canvas = vgsvg.New(Width, Height)
	default:
		return fmt.Errorf("unsupported plot format %q (use png or svg)", format)
	}
	p.Draw(draw.Crop(draw.New(canvas), margin, -margin, margin/2, -margin))
	_, err := canvas.WriteTo(w)
	return err
}
