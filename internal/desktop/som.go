package desktop

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"sort"
	"strconv"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Marks are the elements a Set-of-Mark screenshot numbers: the visible, clickable
// ones with a size, on the screen, in reading order (top to bottom, left to right).
// Mark n is Marks(els)[n-1].
func Marks(els []Element, w, h int) []Element {
	var out []Element
	for _, e := range els {
		if !e.Visible || !e.Clickable || e.W < 2 || e.H < 2 {
			continue
		}
		if e.X >= w || e.Y >= h || e.X+e.W <= 0 || e.Y+e.H <= 0 {
			continue
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Y != out[j].Y {
			return out[i].Y < out[j].Y
		}
		return out[i].X < out[j].X
	})
	return out
}

// MarkColor is the colour of the boxes and of their labels' background.
var MarkColor = color.RGBA{R: 0xff, G: 0x00, B: 0xc8, A: 0xff}

// DrawMarks draws, on img, a box round each mark and its number in a filled label at
// its top-left corner; scale maps screen pixels to img's.
func DrawMarks(img *image.RGBA, marks []Element, scale float64) {
	face := basicfont.Face7x13
	for i, e := range marks {
		x0, y0 := int(float64(e.X)*scale), int(float64(e.Y)*scale)
		x1, y1 := int(float64(e.X+e.W)*scale)-1, int(float64(e.Y+e.H)*scale)-1
		box(img, x0, y0, x1, y1, MarkColor)
		label := strconv.Itoa(i + 1)
		lw := font.MeasureString(face, label).Ceil() + 4
		lh := 13
		ly := y0 - lh
		if ly < 0 {
			ly = y0
		}
		draw.Draw(img, image.Rect(x0, ly, x0+lw, ly+lh), &image.Uniform{MarkColor}, image.Point{}, draw.Src)
		d := font.Drawer{Dst: img, Src: image.NewUniform(color.White), Face: face,
			Dot: fixed.P(x0+2, ly+lh-3)}
		d.DrawString(label)
	}
}

// box draws a 2-pixel rectangle.
func box(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	b := img.Bounds()
	set := func(x, y int) {
		if image.Pt(x, y).In(b) {
			img.SetRGBA(x, y, c)
		}
	}
	for t := 0; t < 2; t++ {
		for x := x0; x <= x1; x++ {
			set(x, y0+t)
			set(x, y1-t)
		}
		for y := y0; y <= y1; y++ {
			set(x0+t, y)
			set(x1-t, y)
		}
	}
}

// Fit is the scale that brings a w×h screen within the model's image limit: the long
// side at most maxSide and the area at most maxPixels (1 when it fits already).
func Fit(w, h, maxSide, maxPixels int) float64 {
	s := 1.0
	if long := max(w, h); long > maxSide {
		s = float64(maxSide) / float64(long)
	}
	if area := float64(w) * float64(h) * s * s; area > float64(maxPixels) {
		s *= math.Sqrt(float64(maxPixels) / area)
	}
	return s
}

// Scale returns img scaled by s (img itself when s is 1).
func Scale(img *image.RGBA, s float64) *image.RGBA {
	if s >= 1 {
		return img
	}
	b := img.Bounds()
	w, h := max(1, int(float64(b.Dx())*s)), max(1, int(float64(b.Dy())*s))
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.ApproxBiLinear.Scale(out, out.Bounds(), img, b, draw.Src, nil)
	return out
}
