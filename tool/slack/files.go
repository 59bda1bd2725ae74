package slack

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	slackapi "github.com/slack-go/slack"

	"github.com/agno-go/agno/tool/internal/serviceapi"
)

// fileContent is agno's Union[str, bytes]: the model sends text.
type fileContent string

// JSONSchema is agno's schema of Union[str, bytes] (bytes is an
// "object" to agno's type mapping).
func (fileContent) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"anyOf":[{"type":"string"},{"type":"object"}]}`)
}

type uploadArgs struct {
	Channel        string      `json:"channel" description:"(str) The channel ID to upload the file to."`
	Content        fileContent `json:"content" description:"(str or bytes) The file content. Text strings will be encoded to bytes."`
	Filename       string      `json:"filename" description:"(str) The name for the uploaded file."`
	Title          *string     `json:"title,omitempty" description:"(str) An optional title for the file."`
	InitialComment *string     `json:"initial_comment,omitempty" description:"(str) An optional message to include with the file upload."`
	ThreadTS       *string     `json:"thread_ts,omitempty" description:"(str) The timestamp of a thread to upload the file into. Optional."`
}

type downloadArgs struct {
	FileID   string  `json:"file_id" description:"(str) The Slack file ID to download."`
	DestPath *string `json:"dest_path,omitempty" description:"(str) An optional destination path to save the file to. Must be within the configured output_directory."`
}

const mib = 1024 * 1024

// sanitizeFilename keeps a plain file name: no directories, no "..".
func sanitizeFilename(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" || n == "." || n == ".." || strings.ContainsAny(n, `/\`) || strings.ContainsRune(n, 0) {
		return "", fmt.Errorf("%q is not a plain file name", name)
	}
	return n, nil
}

func (t *tools) uploadFile(ctx context.Context, a uploadArgs) (string, error) {
	content := []byte(a.Content)
	if int64(len(content)) > t.maxFileSize {
		return t.dumps(errObject(fmt.Sprintf("File %s (%.1fMB) exceeds %.0fMB upload limit", a.Filename,
			float64(len(content))/mib, float64(t.maxFileSize)/mib))), nil
	}
	name, err := sanitizeFilename(a.Filename)
	if err != nil {
		return t.dumps(errObject("Invalid filename: " + err.Error())), nil
	}
	ans, aerr := t.call(ctx, "files.completeUploadExternal", func(ctx context.Context) error {
		_, err := t.api.UploadFileContext(ctx, slackapi.UploadFileParameters{
			Content: string(content), FileSize: len(content), Filename: name, Title: or(a.Title), InitialComment: or(a.InitialComment),
			Channel: a.Channel, ThreadTimestamp: or(a.ThreadTS),
		})
		return err
	})
	if aerr != nil {
		return t.dumps(errObject(aerr.String())), nil
	}
	return t.dumps(ans), nil
}

func or(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// limitedWriter refuses bytes past its limit.
type limitedWriter struct {
	b     []byte
	limit int64
}

var errTooBig = errors.New("the file is larger than max_file_size")

func (w *limitedWriter) Write(p []byte) (int, error) {
	if int64(len(w.b)+len(p)) > w.limit {
		return 0, errTooBig
	}
	w.b = append(w.b, p...)
	return len(p), nil
}

func (t *tools) downloadFile(ctx context.Context, a downloadArgs) (string, error) {
	info, aerr := t.call(ctx, "files.info", func(ctx context.Context) error {
		_, _, _, err := t.api.GetFileInfoContext(ctx, a.FileID, 0, 0)
		return err
	})
	if aerr != nil {
		return t.dumps(errObject(aerr.String())), nil
	}
	file := obj(info.GetOr("file", nil))
	urlPrivate := str(file.GetOr("url_private", nil))
	if urlPrivate == "" {
		return t.dumps(errObject("File URL not available")), nil
	}
	filename := str(file.GetOr("name", "file_"+a.FileID))
	size := file.GetOr("size", 0)
	var n float64
	if num, ok := size.(json.Number); ok {
		n, _ = num.Float64()
	}
	if n > float64(t.maxFileSize) {
		return t.dumps(errObject(fmt.Sprintf("File %s (%.1fMB) exceeds %.0fMB download limit", filename, n/mib, float64(t.maxFileSize)/mib))), nil
	}
	dctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	w := &limitedWriter{limit: t.maxFileSize}
	// slack-go sends the token as a bearer, as agno does; the URL is
	// Slack's, fetched through the guarded client.
	if err := t.api.GetFileContext(dctx, urlPrivate, w); err != nil {
		return t.dumps(errObject("HTTP error: " + err.Error())), nil
	}
	out := serviceapi.NewObject()
	out.Set("file_id", a.FileID)
	out.Set("filename", filename)
	out.Set("size", size)
	if t.outputDir != "" {
		path, err := t.save(w.b, filename, or(a.DestPath))
		if err == nil {
			out.Set("path", path)
			return t.dumps(out), nil
		}
		t.log.Debug("Local save failed, falling back to base64: " + err.Error())
		out.Set("save_error", err.Error())
	}
	out.Set("content_base64", base64.StdEncoding.EncodeToString(w.b))
	return t.dumps(out), nil
}

// save writes content under output_directory: at dest (a relative path
// that stays inside) or at the plain file name.
func (t *tools) save(content []byte, filename, dest string) (string, error) {
	var rel string
	if dest != "" {
		clean := filepath.Clean(dest)
		if filepath.IsAbs(dest) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("dest_path %q leaves output_directory", dest)
		}
		rel = clean
	} else {
		name, err := sanitizeFilename(filename)
		if err != nil {
			return "", err
		}
		rel = name
	}
	path := filepath.Join(t.outputDir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return "", err
	}
	return path, nil
}
