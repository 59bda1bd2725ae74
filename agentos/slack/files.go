package slack

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	slackapi "github.com/slack-go/slack"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
)

// DefaultMaxFileSize bounds one downloaded Slack file. agno's default is
// 1 GiB, read into memory: far too much for a server answering many
// threads at once. This is AgentOS's own bound of an uploaded file
// (agentos.DefaultMaxUploadBytes, 32 MiB, which this package cannot
// import: agentos imports it).
const DefaultMaxFileSize = 32 << 20

// File is a file shared with a Slack message (event.files[]).
type File struct {
	ID       string
	Name     string
	MimeType string
	Size     int64  // as Slack reports it
	URL      string // url_private_download, else url_private: needs the bot token
}

// Inbound is what Download fetched, sorted into a run's media, and the
// files it left out.
type Inbound struct {
	Images []model.Image
	// Files are the other files, audio and video included: the model
	// package has no audio or video media, and a model that cannot read
	// a file type says so.
	Files []model.File
	// Skipped names each file left out and why, as agno's notice.
	Skipped []string
}

// Notice is text with agno's "[Skipped files: …]" line in front when
// files were skipped, so the model (and the user) knows they were sent.
func (in Inbound) Notice(text string) string {
	if len(in.Skipped) == 0 {
		return text
	}
	return "[Skipped files: " + strings.Join(in.Skipped, ", ") + "]\n" + text
}

// FileLimit is c.MaxFileSize, or DefaultMaxFileSize when unset.
func (c *Config) FileLimit() int64 {
	if c.MaxFileSize > 0 {
		return c.MaxFileSize
	}
	return DefaultMaxFileSize
}

// Download fetches files with api's bot token, each into memory and at
// most maxBytes long (0: DefaultMaxFileSize), as agno's
// download_event_files_async: images become images, everything else
// files. A file too large (by its reported size or by what arrives), with
// no URL or whose download fails is skipped and named in Skipped. The
// only error is ctx's, when the caller gave up.
func Download(ctx context.Context, api *slackapi.Client, files []File, maxBytes int64) (Inbound, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFileSize
	}
	var in Inbound
	for _, f := range files {
		name := f.Name
		if name == "" {
			name = "file" // agno's default
		}
		if f.Size > maxBytes {
			in.Skipped = append(in.Skipped, fmt.Sprintf("%s (%s — exceeds %s limit)", name, megabytes(f.Size), megabytes(maxBytes)))
			continue
		}
		if f.URL == "" {
			in.Skipped = append(in.Skipped, name+" (no download URL)")
			continue
		}
		buf := &boundedBuffer{max: maxBytes}
		err := api.GetFileContext(ctx, f.URL, buf)
		if ctx.Err() != nil {
			return Inbound{}, ctx.Err()
		}
		switch {
		case errors.Is(err, errTooLarge):
			in.Skipped = append(in.Skipped, fmt.Sprintf("%s (exceeds %s limit)", name, megabytes(maxBytes)))
			continue
		case err != nil:
			in.Skipped = append(in.Skipped, fmt.Sprintf("%s (download failed: %v)", name, err))
			continue
		case buf.Len() == 0:
			in.Skipped = append(in.Skipped, name+" (empty)")
			continue
		}
		data := buf.Bytes()
		mt := mimeType(f.MimeType, name)
		if strings.HasPrefix(mt, "image/") {
			in.Images = append(in.Images, model.Image{Content: data, MimeType: mt, Size: int64(len(data))})
		} else {
			in.Files = append(in.Files, model.File{Filename: name, Content: data, MimeType: mt, Size: int64(len(data))})
		}
	}
	return in, nil
}

// mimeType is Slack's mimetype without parameters; a missing or generic
// one is guessed from the file name, as AgentOS does for uploads.
func mimeType(mt, name string) string {
	mt, _, _ = mime.ParseMediaType(mt)
	if mt == "" || mt == "application/octet-stream" {
		if guess, _, _ := mime.ParseMediaType(mime.TypeByExtension(strings.ToLower(filepath.Ext(name)))); guess != "" {
			return guess
		}
	}
	return cmp.Or(mt, "application/octet-stream")
}

// megabytes is agno's size text ("12.3MB").
func megabytes(n int64) string {
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + "MB"
}

var errTooLarge = errors.New("slack: file larger than the limit")

// boundedBuffer keeps at most max bytes and reads at most max+1 from the
// download (ReadFrom, which io.Copy prefers), so a file larger than its
// reported size is cut short instead of filling memory.
type boundedBuffer struct {
	bytes.Buffer
	max int64
}

func (b *boundedBuffer) ReadFrom(r io.Reader) (int64, error) {
	n, err := b.Buffer.ReadFrom(io.LimitReader(r, b.max+1-int64(b.Len())))
	if err == nil && int64(b.Len()) > b.max {
		err = errTooLarge
	}
	return n, err
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if int64(b.Len()+len(p)) > b.max {
		return 0, errTooLarge
	}
	return b.Buffer.Write(p)
}

// UploadOutputs uploads out's images to m's thread (files.uploadV2:
// getUploadURLExternal, the upload, completeUploadExternal), as agno's
// upload_response_media_async; run.Output holds no other media. Images
// with bytes or a data: URL are uploaded; one with only a remote URL is
// posted as a link instead: agno downloads it again to upload it, which
// is an unbounded fetch of a URL a model chose. Images kept only as a
// stored blob (an ID) are the caller's to load first. A failed upload
// does not stop the others (agno logs it and goes on): the errors are
// joined.
func UploadOutputs(ctx context.Context, api *slackapi.Client, m Message, out *run.Output) error {
	if out == nil {
		return nil
	}
	var errs, links []string
	n := 0
	for i, img := range out.Images {
		data, mt := img.Content, img.MimeType
		if len(data) == 0 && strings.HasPrefix(img.URL, "data:") {
			var err error
			if data, mt, err = decodeDataURL(img.URL); err != nil {
				errs = append(errs, fmt.Sprintf("image %d: %v", i+1, err))
				continue
			}
		}
		if len(data) == 0 {
			if u, err := url.Parse(img.URL); err == nil && (u.Scheme == "https" || u.Scheme == "http") {
				links = append(links, "<"+img.URL+">")
			}
			continue
		}
		n++
		name := imageName(mt, n)
		_, err := api.UploadFileContext(ctx, slackapi.UploadFileParameters{
			Reader: bytes.NewReader(data), FileSize: len(data), Filename: name,
			Channel: m.Channel, ThreadTimestamp: m.ThreadTS,
		})
		if err != nil {
			errs = append(errs, fmt.Sprintf("upload %s: %v", name, err))
		}
	}
	if len(links) > 0 {
		if err := Post(ctx, api, m, strings.Join(links, "\n")); err != nil {
			errs = append(errs, fmt.Sprintf("post image links: %v", err))
		}
	}
	if len(errs) > 0 {
		return errors.New("slack: " + strings.Join(errs, "; "))
	}
	return nil
}

// imageName is agno's "image.png", with the image's own extension, and
// numbered from the second image on.
func imageName(mt string, n int) string {
	ext := "png"
	if sub, ok := strings.CutPrefix(mt, "image/"); ok && sub != "" && !strings.ContainsAny(sub, "/;+ ") {
		ext = sub
	}
	if n > 1 {
		return "image-" + strconv.Itoa(n) + "." + ext
	}
	return "image." + ext
}

// decodeDataURL reads a data: URL's bytes and MIME type.
func decodeDataURL(s string) ([]byte, string, error) {
	meta, payload, ok := strings.Cut(strings.TrimPrefix(s, "data:"), ",")
	if !ok {
		return nil, "", errors.New("data URL without a comma")
	}
	mt, isBase64 := strings.CutSuffix(meta, ";base64")
	if !isBase64 {
		text, err := url.PathUnescape(payload)
		return []byte(text), mt, err
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return nil, "", fmt.Errorf("data URL: %w", err)
	}
	return data, mt, nil
}
