package fs

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/gif" // registers the GIF decoder
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"strings"

	"golang.org/x/image/draw"

	_ "golang.org/x/image/bmp"  // registers the BMP decoder
	_ "golang.org/x/image/webp" // registers the WEBP decoder

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Limits of an image sent to the model; a larger one is downscaled.
const (
	maxImageBytes  = 5 << 20
	maxImageSide   = 8000
	maxImageFile   = 64 << 20 // larger files are not loaded
	maxImagePixels = 64 << 20 // larger images are not decoded
)

// imageKind recognises an image by its magic bytes: "png", "jpeg", "gif", "webp", "bmp",
// or "" for anything else.
func imageKind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return "jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "gif"
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return "webp"
	case len(head) >= 26 && string(head[:2]) == "BM":
		return "bmp"
	}
	return ""
}

// readImage returns the image at abs as an image block, downscaled or converted when the
// providers would refuse it (too big, too wide, or BMP, which they do not take).
func readImage(ctx context.Context, shown, abs string, size int64, kind string) tool.Result {
	name := strings.ToUpper(kind)
	if size > maxImageFile {
		return tool.Fail(fmt.Sprintf("%s is a %s image of %s, too large to load (the limit is %s); make a smaller copy with a shell command and read that.", shown, name, humanSize(size), humanSize(maxImageFile)))
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return tool.Fail(statFailure(shown, err))
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return tool.Fail(fmt.Sprintf("%s starts like a %s image but cannot be decoded (%v); it is %s.", shown, name, err, humanSize(int64(len(data)))))
	}
	w, h := cfg.Width, cfg.Height
	desc := fmt.Sprintf("%s image, %d×%d pixels, %s", name, w, h, humanSize(int64(len(data))))
	note := fmt.Sprintf("%s %d×%d, %s", name, w, h, humanSize(int64(len(data))))
	if len(data) <= maxImageBytes && w <= maxImageSide && h <= maxImageSide && kind != "bmp" {
		return tool.Result{
			Text:    fmt.Sprintf("%s: %s.", shown, desc),
			Images:  []llm.Image{{MediaType: "image/" + kind, Data: data}},
			Display: tool.Display{Note: note},
		}
	}
	if int64(w)*int64(h) > maxImagePixels {
		return tool.Fail(fmt.Sprintf("%s is a %s, too many pixels to decode and downscale here; make a smaller copy with a shell command and read that.", shown, desc))
	}
	if ctx.Err() != nil {
		return tool.Fail("read_file was cancelled.")
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return tool.Fail(fmt.Sprintf("%s starts like a %s image but cannot be decoded (%v).", shown, name, err))
	}
	out, mediaType, err := shrink(ctx, img)
	if err != nil {
		return tool.Fail(fmt.Sprintf("%s (%s) could not be downscaled: %v.", shown, desc, err))
	}
	b, _, _ := image.DecodeConfig(bytes.NewReader(out))
	sent := fmt.Sprintf("%d×%d %s, %s", b.Width, b.Height, strings.ToUpper(strings.TrimPrefix(mediaType, "image/")), humanSize(int64(len(out))))
	return tool.Result{
		Text:    fmt.Sprintf("%s: %s; sent as %s to fit the model's limits.", shown, desc, sent),
		Images:  []llm.Image{{MediaType: mediaType, Data: out}},
		Display: tool.Display{Note: note + " → " + sent},
	}
}

// shrink scales img so that no side exceeds maxImageSide and the encoding stays under
// maxImageBytes: PNG when it has transparency, JPEG otherwise.
func shrink(ctx context.Context, img image.Image) ([]byte, string, error) {
	bounds := img.Bounds()
	scale := min(1, float64(maxImageSide)/float64(max(bounds.Dx(), bounds.Dy())))
	opaque := true
	if o, ok := img.(interface{ Opaque() bool }); ok {
		opaque = o.Opaque()
	}
	for range 8 {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		w := max(1, int(float64(bounds.Dx())*scale))
		h := max(1, int(float64(bounds.Dy())*scale))
		dst := img
		if scale < 1 {
			rgba := image.NewRGBA(image.Rect(0, 0, w, h))
			draw.BiLinear.Scale(rgba, rgba.Bounds(), img, bounds, draw.Src, nil)
			dst = rgba
		}
		var buf bytes.Buffer
		mediaType := "image/jpeg"
		var err error
		if opaque {
			err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85})
		} else {
			mediaType = "image/png"
			err = png.Encode(&buf, dst)
		}
		if err != nil {
			return nil, "", err
		}
		if buf.Len() <= maxImageBytes {
			return buf.Bytes(), mediaType, nil
		}
		scale *= 0.7
	}
	return nil, "", fmt.Errorf("still over %s after downscaling", humanSize(maxImageBytes))
}

// ReadImage loads the image file at path as read_file gives it to the model
// (downscaled or converted when a provider would refuse it); ok is false when path
// is not a regular file holding an image gantry reads, or cannot be loaded.
func ReadImage(ctx context.Context, path string) (img llm.Image, ok bool) {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return llm.Image{}, false
	}
	f, err := os.Open(path)
	if err != nil {
		return llm.Image{}, false
	}
	head := make([]byte, 32)
	n, _ := io.ReadFull(f, head)
	f.Close()
	kind := imageKind(head[:n])
	if kind == "" {
		return llm.Image{}, false
	}
	r := readImage(ctx, path, path, info.Size(), kind)
	if r.IsError || len(r.Images) == 0 {
		return llm.Image{}, false
	}
	return r.Images[0], true
}
