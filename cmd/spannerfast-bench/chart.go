package main

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// armColors keeps each arm's colour the same from chart to chart: floors in
// greys, the official client in warm colours, spannerfast in blue/green.
var armColors = map[string]color.Color{
	armTransport: color.RGBA{R: 0xb0, G: 0xb0, B: 0xb0, A: 0xff},
	armSQLFloor:  color.RGBA{R: 0x70, G: 0x70, B: 0x70, A: 0xff},
	armClient:    color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	armBorrow:    color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	armFastSafe:  color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	armFastRaw:   color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	armFastOtel:  color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
}

// logBars draws one arm's bars on a log-scale axis: from the bottom of the
// axis up to the value (plotter.BarChart starts bars at 0, which a log
// scale cannot show).
type logBars struct {
	vals   []float64 // per workload; NaN when missing
	width  vg.Length
	offset vg.Length
	color  color.Color
	label  draw.TextStyle
}

func (b *logBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for i, v := range b.vals {
		if math.IsNaN(v) || v <= 0 {
			continue
		}
		x := trX(float64(i)) + b.offset
		y0, y1 := trY(plt.Y.Min), trY(v)
		pts := []vg.Point{{X: x - b.width/2, Y: y0}, {X: x - b.width/2, Y: y1}, {X: x + b.width/2, Y: y1}, {X: x + b.width/2, Y: y0}}
		c.FillPolygon(b.color, c.ClipPolygonXY(pts))
		c.FillText(b.label, vg.Point{X: x, Y: y1 + 2}, shortRatio(v))
	}
}

func (b *logBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, v := range b.vals {
		if math.IsNaN(v) || v <= 0 {
			continue
		}
		ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
	}
	return 0, float64(len(b.vals) - 1), ymin, ymax
}

func (b *logBars) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(b.color, pts)
}

func shortRatio(v float64) string {
	switch {
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// logTicks labels 1-2-5 steps, which read better than powers of ten alone
// over the one or two decades a chart spans.
func logTicks(lo, hi float64) plot.ConstantTicks {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)) - 1; e <= math.Ceil(math.Log10(hi))+1; e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v >= lo && v <= hi {
				ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
			}
		}
	}
	return ticks
}

// writeChart draws grouped bars: per workload, each arm's CPU per row (per
// query for point and manycols, per op for writes) relative to the
// workload's baseline arm, on a log scale, with a line at 1.
func writeChart(path string, rep *report) error {
	arms := rep.ranArms()
	var names []string
	for _, w := range rep.Workloads {
		names = append(names, w.Name)
	}
	if len(arms) == 0 || len(names) == 0 {
		return fmt.Errorf("chart: no results to draw")
	}
	p := plot.New()
	var title []string
	if rep.has(isRead) {
		title = append(title, fmt.Sprintf("Client CPU per row (per query for point, manycols) relative to %s — log scale, lower is better", rep.Meta.Baseline))
		if rep.Meta.BaselineNote != "" {
			title = append(title, rep.Meta.BaselineNote)
		}
	}
	if rep.has(isWrite) {
		title = append(title, "Writes: client CPU per op (txread-*: per row) relative to client (txread-checksum: to client's txread-nochecksum) — log scale, lower is better")
	}
	if rep.has(isPartitioned) {
		title = append(title, "partitioned-N, *-latency: client CPU per row relative to client's reading of the same rows")
	}
	p.Title.Text = strings.Join(title, "\n")
	p.Y.Label.Text = "CPU / " + rep.Meta.Baseline + " CPU"
	if !rep.has(isRead) {
		p.Y.Label.Text = "CPU / " + armClient + " CPU"
	}
	p.Y.Scale = plot.LogScale{}
	p.NominalX(names...)
	// The legend gets its own column right of the plot, where no bar can
	// hide under it.
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.Padding = vg.Points(3)
	legend.YOffs = -vg.Points(30)

	groupWidth := vg.Points(float64(720) / float64(len(names)) * 0.8)
	barWidth := groupWidth / vg.Length(len(arms))
	label := draw.TextStyle{
		Color:   color.Black,
		Font:    font.From(plot.DefaultFont, vg.Points(7)),
		XAlign:  draw.XCenter,
		YAlign:  draw.YBottom,
		Handler: plot.DefaultTextHandler,
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil // the groups are nominal
	p.Add(grid)               // first, so the bars cover it
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, a := range arms {
		b := &logBars{width: barWidth * 0.9, color: armColors[a.ID], label: label,
			offset: -groupWidth/2 + barWidth*vg.Length(i) + barWidth/2}
		if b.color == nil {
			b.color = color.Black
		}
		for _, w := range names {
			v := math.NaN()
			if r := rep.get(a.ID, w); r != nil && r.VsBaseline != nil && *r.VsBaseline > 0 {
				v = *r.VsBaseline
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			b.vals = append(b.vals, v)
		}
		p.Add(b)
		legend.Add(a.Title, b)
	}
	if math.IsInf(lo, 1) {
		return fmt.Errorf("chart: no ratios to draw (the baseline arm %s has no results)", rep.Meta.Baseline)
	}
	lo, hi = math.Min(lo, 1), math.Max(hi, 1)
	p.Y.Min, p.Y.Max = lo/1.6, hi*1.8
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	p.Y.Tick.Marker = logTicks(p.Y.Min, p.Y.Max)
	one, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(len(names)) - 0.5, Y: 1}})
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	one.Color = color.Black
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(one)

	c := vgimg.PngCanvas{Canvas: vgimg.New(13*vg.Inch, 6*vg.Inch)}
	dc := draw.New(c)
	legendWidth := 1.7 * vg.Inch
	p.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	legend.Draw(draw.Crop(dc, dc.Max.X-legendWidth+vg.Points(10), 0, 0, 0))
	f, err := createFile(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("writing the chart: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the chart: %w", err)
	}
	return nil
}
