package knowledge

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/reader"
)

// HashOptions configures the content hash.
type HashOptions struct {
	// IncludeMetadata puts the content's metadata into its hash, as agno
	// does from v2.6.13 on, so the same file inserted with different
	// metadata is two contents. nil means true; false restores the
	// v2.6.12 hash for data ingested before (settings.json
	// runtime.content_hash.include_metadata).
	IncludeMetadata *bool
}

func (o HashOptions) includeMetadata() bool { return o.IncludeMetadata == nil || *o.IncludeMetadata }

// ContentHash is agno's _build_content_hash: sha256 of the parts below
// joined by ":", hex-encoded.
//
//   - the name and the description, when set;
//   - the metadata without "_agno", as Python's json.dumps(metadata,
//     sort_keys=True, default=str), when not empty (and IncludeMetadata);
//   - the path; else the URL; else, for file data with content, its
//     filename, else its type, else its size, else "str:" or "bytes:" and
//     the first 16 hex digits of its sha256; else the first topic and the
//     reader's class name ("unknown" without one); else the name, the id,
//     or "unknown_content" and six random characters.
func ContentHash(c *Content, o HashOptions) string {
	var parts []string
	if c.Name != "" {
		parts = append(parts, c.Name)
	}
	if c.Description != "" {
		parts = append(parts, c.Description)
	}
	if md := metadataPart(c.Metadata, o); md != "" {
		parts = append(parts, md)
	}
	fd := c.FileData
	switch {
	case c.Path != "":
		parts = append(parts, c.Path)
	case c.URL != "":
		parts = append(parts, c.URL)
	case fd != nil && len(fd.Content) > 0:
		switch {
		case fd.Filename != "":
			parts = append(parts, fd.Filename)
		case fd.Type != "":
			parts = append(parts, fd.Type)
		case fd.Size != nil:
			parts = append(parts, strconv.FormatInt(*fd.Size, 10))
		default:
			kind := "str"
			if fd.Binary {
				kind = "bytes"
			}
			sum := sha256.Sum256(fd.Content)
			parts = append(parts, kind+":"+hex.EncodeToString(sum[:])[:16])
		}
	case len(c.Topics) > 0:
		parts = append(parts, c.Topics[0]+"-"+readerClassName(c.Reader))
	default:
		switch {
		case c.Name != "":
			parts = append(parts, c.Name)
		case c.ID != "":
			parts = append(parts, c.ID)
		default:
			parts = append(parts, "unknown_content"+randomSuffix())
		}
	}
	return sha256Hex(strings.Join(parts, ":"))
}

// DocumentContentHash is agno's _build_document_content_hash, the hash of
// one page of a multi-page source: the content's name, description and
// metadata as in ContentHash, then the document's "url" metadata, else the
// content's URL, else its path, else the first 16 hex digits of the sha256
// of the document's text.
func DocumentContentHash(doc *document.Document, c *Content, o HashOptions) string {
	var parts []string
	if c.Name != "" {
		parts = append(parts, c.Name)
	}
	if c.Description != "" {
		parts = append(parts, c.Description)
	}
	if md := metadataPart(c.Metadata, o); md != "" {
		parts = append(parts, md)
	}
	docURL, _ := doc.MetaData["url"]
	switch {
	case truthy(docURL):
		parts = append(parts, fmt.Sprint(docURL))
	case c.URL != "":
		parts = append(parts, c.URL)
	case c.Path != "":
		parts = append(parts, c.Path)
	default:
		parts = append(parts, sha256Hex(doc.Content)[:16])
	}
	return sha256Hex(strings.Join(parts, ":"))
}

// ContentID is agno's generate_id: uuid5(NAMESPACE_DNS, hash).
func ContentID(hash string) string {
	return uuid.NewSHA1(uuid.NameSpaceDNS, []byte(hash)).String()
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// metadataPart is the metadata segment of the hash, or "" for none.
func metadataPart(md map[string]any, o HashOptions) string {
	md = StripAgnoMetadata(md)
	if !o.includeMetadata() || len(md) == 0 {
		return ""
	}
	s, err := pyjson.DumpsOpts(pythonValues(md), pyjson.Options{SortKeys: true})
	if err != nil {
		// pyjson fails only on values json.dumps would reject too; fall
		// back to Python's str() of the dict so the hash stays defined.
		return fmt.Sprint(md)
	}
	return s
}

// pythonValues turns values json.dumps would pass to default=str into
// the strings Python's str() gives: time.Time as str(datetime).
func pythonValues(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = pythonValues(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pythonValues(e)
		}
		return out
	case time.Time:
		return pyDatetime(x)
	case *time.Time:
		if x == nil {
			return nil
		}
		return pyDatetime(*x)
	}
	return v
}

// pyDatetime is Python's str() of a timezone-aware datetime:
// "2024-01-02 03:04:05[.ffffff]+HH:MM".
func pyDatetime(t time.Time) string {
	s := t.Format("2006-01-02 15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return s + t.Format("-07:00")
}

// truthy is Python's bool() for the JSON-like values metadata holds.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case bool:
		return x
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Array:
		return rv.Len() > 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() != 0
	case reflect.Float32, reflect.Float64:
		return rv.Float() != 0
	}
	return true
}

// readerClassName is type(reader).__name__ for the topic hash part.
func readerClassName(r reader.Reader) string {
	if r == nil {
		return "unknown"
	}
	if n, ok := r.(reader.ClassNamer); ok {
		return n.ClassName()
	}
	t := reflect.TypeOf(r)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// randomSuffix is agno's six random lower-case letters and digits.
func randomSuffix() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
