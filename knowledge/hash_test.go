package knowledge

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/quick"
	"time"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/reader"
)

var def = HashOptions{}

// The five golden cases of shared/spec/v2.6.13-changes.md A3.
func TestContentHashGolden(t *testing.T) {
	cases := []struct {
		name string
		c    Content
		hash string
		id   string
	}{
		{"1 path", Content{Path: "./demo.pdf"},
			"50c6b3e91093a697bab6e423ed132c9f81402dd84efd81fa4544740feeeda0fd", "8f35d9a0-2dd1-58f3-b88b-f2383855725d"},
		{"1 path, empty metadata", Content{Path: "./demo.pdf", Metadata: map[string]any{}},
			"50c6b3e91093a697bab6e423ed132c9f81402dd84efd81fa4544740feeeda0fd", "8f35d9a0-2dd1-58f3-b88b-f2383855725d"},
		{"2 server 10", Content{Path: "./demo.pdf", Metadata: map[string]any{"doc_id": 1, "collection_id": 1, "server_id": "10"}},
			"c5521948500454dd7380f623c15bd0259c9f15c57e2d019680dd5e5160e7fe81", "89b207e0-6416-5106-a769-f638305a299b"},
		{"2 server 11", Content{Path: "./demo.pdf", Metadata: map[string]any{"doc_id": 1, "collection_id": 1, "server_id": "11"}},
			"d43a1c06b808516f945caf827a57bfe400c2e75020a8cd163746970ad6716434", ""},
		{"3 url and name", Content{URL: "https://example.com/doc.pdf", Name: "Doc"},
			"4bd6282a6fc346a7b8d9cb5de72b0121facf9d0daa48047c2cef7dc2da7a2634", ""},
		{"3 url, name and metadata", Content{URL: "https://example.com/doc.pdf", Name: "Doc", Metadata: map[string]any{"tenant": "a"}},
			"1b31b5e6b621e33a0a2c13516de40609549cf666bb293ae62871c1d6246500d8", ""},
		{"5 text", Content{FileData: &FileData{Content: []byte("hello"), Type: "Text"}},
			"71988c4d8e0803ba4519f0b2864c1331c14a1890bf8694e251379177bfedb5c3", "35435304-3154-5af0-9b01-a233f029fbbe"},
		{"5 other text collides (pre-existing in agno)", Content{FileData: &FileData{Content: []byte("bye"), Type: "Text"}},
			"71988c4d8e0803ba4519f0b2864c1331c14a1890bf8694e251379177bfedb5c3", ""},
		{"5 text with metadata", Content{FileData: &FileData{Content: []byte("hello"), Type: "Text"}, Metadata: map[string]any{"b": 2, "a": "x"}},
			"d5818c28bf8a3007a4da7cbad0e23581f8b8337012539891d45a1d6e8f17bb45", "f3ff287e-762a-5ba6-a7d6-402d255179f1"},
		// _agno never reaches the hash: the hash equals case 1's.
		{"_agno stripped", Content{Path: "./demo.pdf", Metadata: map[string]any{AgnoMetadataKey: map[string]any{"source_url": "x"}}},
			"50c6b3e91093a697bab6e423ed132c9f81402dd84efd81fa4544740feeeda0fd", ""},
	}
	for _, c := range cases {
		got := ContentHash(&c.c, def)
		if got != c.hash {
			t.Errorf("%s: hash %s, want %s", c.name, got, c.hash)
		}
		if c.id != "" && ContentID(got) != c.id {
			t.Errorf("%s: id %s, want %s", c.name, ContentID(got), c.id)
		}
	}
}

func TestDocumentContentHashGolden(t *testing.T) {
	doc := &document.Document{MetaData: map[string]any{"url": "https://example.com/page"}}
	c := &Content{URL: "https://example.com", Metadata: map[string]any{"server_id": "10"}}
	if got := DocumentContentHash(doc, c, def); got != "76efb0cb22a151ecabc12dec46663fd53b13ec724e1af1f5c1fd3e1c00eee7e1" {
		t.Errorf("server 10: %s", got)
	}
	c.Metadata["server_id"] = "11"
	if got := DocumentContentHash(doc, c, def); got != "ff255e6b71e7d940b7e127473132d953f164f0c2930e3397728a0946211cf7ff" {
		t.Errorf("server 11: %s", got)
	}
	// Without a page URL: the content's URL, then path, then the text.
	noURL := &document.Document{Content: "page text"}
	if DocumentContentHash(noURL, &Content{URL: "u"}, def) != sha256Hex("u") ||
		DocumentContentHash(noURL, &Content{Path: "p"}, def) != sha256Hex("p") ||
		DocumentContentHash(noURL, &Content{}, def) != sha256Hex(sha256Hex("page text")[:16]) {
		t.Error("document hash fallbacks differ from agno's")
	}
}

// include_metadata=false is the v2.6.12 hash: metadata changes nothing.
func TestContentHashWithoutMetadata(t *testing.T) {
	legacy := HashOptions{IncludeMetadata: new(false)}
	c := &Content{Path: "./demo.pdf", Metadata: map[string]any{"server_id": "10"}}
	if got := ContentHash(c, legacy); got != "50c6b3e91093a697bab6e423ed132c9f81402dd84efd81fa4544740feeeda0fd" {
		t.Errorf("legacy hash %s, want case 1's", got)
	}
	if ContentHash(c, HashOptions{IncludeMetadata: new(true)}) == ContentHash(c, legacy) {
		t.Error("IncludeMetadata true gives the legacy hash")
	}
}

// json.dumps pitfalls: sorted nested keys, ", "/": " separators, \u
// escapes with surrogate pairs, no HTML escaping, Python float repr and
// str() of a datetime. Golden value computed with Python.
func TestContentHashPythonJSON(t *testing.T) {
	md := map[string]any{
		"x": "😀", "n": []any{1, 2.0}, "k": "é", "html": "<a&b>",
		"t":      time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
		"nested": map[string]any{"b": true, "a": nil},
	}
	want := `{"html": "<a&b>", "k": "\u00e9", "n": [1, 2.0], "nested": {"a": null, "b": true}, "t": "2024-01-02 03:04:05+00:00", "x": "\ud83d\ude00"}`
	if got := metadataPart(md, def); got != want {
		t.Errorf("metadata json\n got %s\nwant %s", got, want)
	}
	if got := ContentHash(&Content{Path: "./demo.pdf", Metadata: md}, def); got != "03ec2177e2e1b776586c9bf012bba9013f851c6dc7ab9e52833449160287168a" {
		t.Errorf("hash %s", got)
	}
	// JSON metadata keeps integers as integers when decoded with
	// DecodeMetadata, as Python's json.loads does.
	decoded, err := DecodeMetadata([]byte(`{"server_id": "10", "doc_id": 1, "collection_id": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := ContentHash(&Content{Path: "./demo.pdf", Metadata: decoded}, def); got != "c5521948500454dd7380f623c15bd0259c9f15c57e2d019680dd5e5160e7fe81" {
		t.Errorf("decoded metadata hash %s, want case 2's", got)
	}
}

func TestContentHashFileDataAndTopics(t *testing.T) {
	size := int64(42)
	cases := []struct {
		c    Content
		want string
	}{
		{Content{Name: "Doc", FileData: &FileData{Content: []byte("x"), Filename: "notes.txt", Type: "text/plain"}}, "0bebf86b8fe6b5f9389c25b388f433dcc74d84a228e8cc8502527c883b967d72"},
		{Content{FileData: &FileData{Content: []byte("x"), Size: &size}}, "73475cb40a568e8da8a045ced110137e159f890ac4da883b6b17dc651b3a8049"},
		{Content{FileData: &FileData{Content: []byte("hello")}}, "028103f006b0b2c5a1a160545aec25188f9198c4795e53a43402fcb42b31975e"},
		{Content{FileData: &FileData{Content: []byte("hello"), Binary: true}}, "691dcf46060904fab410bf84d149b14462315ea695dd32b602c77089c23d1943"},
		{Content{Topics: []string{"python", "go"}, Reader: namedReader{}}, "f0129b843bbb280c97cb7f57910aa711c6d42ab0a9bedfcaec77bfc5d0dba359"},
		{Content{Topics: []string{"python"}}, "b242fc8d25a581175a9e690be0706bb504bb7bdab2e617b86d75d8a4bf48fc81"},
	}
	for i, c := range cases {
		if got := ContentHash(&c.c, def); got != c.want {
			t.Errorf("case %d: %s, want %s", i, got, c.want)
		}
	}
	// The last resort is random, so two such contents never collide.
	//lint:ignore SA4000 the fallback hash is random: two calls must differ
	if ContentHash(&Content{}, def) == ContentHash(&Content{}, def) {
		t.Error("fallback hashes collide")
	}
	if ContentHash(&Content{ID: "abc"}, def) != sha256Hex("abc") {
		t.Error("fallback to the id differs from agno's")
	}
}

type namedReader struct{ reader.Reader }

func (namedReader) ClassName() string { return "WikipediaReader" }

// Key order never changes the hash: random metadata (with nested
// objects) is hashed as built, rebuilt with its keys inserted in another
// order, and decoded from JSON text whose keys are shuffled.
func TestContentHashKeyOrderProperty(t *testing.T) {
	prop := func(seed uint64, keys []string, values []int16) bool {
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		md := randomMetadata(rng, keys, values, 0)
		if len(md) == 0 {
			return true
		}
		want := ContentHash(&Content{Path: "p", Metadata: md}, def)
		shuffled := reinsert(rng, md)
		text := shuffledJSON(rng, md)
		decoded, err := DecodeMetadata([]byte(text))
		if err != nil {
			t.Logf("bad JSON %s: %v", text, err)
			return false
		}
		return ContentHash(&Content{Path: "p", Metadata: shuffled}, def) == want &&
			ContentHash(&Content{Path: "p", Metadata: decoded}, def) == want
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 300}); err != nil {
		t.Fatal(err)
	}
}

func randomMetadata(rng *rand.Rand, keys []string, values []int16, depth int) map[string]any {
	md := map[string]any{}
	for i, k := range keys {
		if i >= 8 {
			break
		}
		v := int16(i)
		if i < len(values) {
			v = values[i]
		}
		switch rng.IntN(5) {
		case 0:
			md[k] = int(v)
		case 1:
			md[k] = float64(v) / 4
		case 2:
			md[k] = fmt.Sprintf("v%dé<&>", v)
		case 3:
			md[k] = []any{int(v), "x", v%2 == 0, nil}
		default:
			if depth < 2 {
				md[k] = randomMetadata(rng, []string{k + "b", k + "a", "z" + k}, values, depth+1)
			} else {
				md[k] = v%2 == 0
			}
		}
	}
	return md
}

func reinsert(rng *rand.Rand, md map[string]any) map[string]any {
	keys := make([]string, 0, len(md))
	for k := range md {
		keys = append(keys, k)
	}
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	out := make(map[string]any, len(md))
	for _, k := range keys {
		v := md[k]
		if m, ok := v.(map[string]any); ok {
			v = reinsert(rng, m)
		}
		out[k] = v
	}
	return out
}

// shuffledJSON writes md as JSON with its object keys in random order.
func shuffledJSON(rng *rand.Rand, v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		parts := make([]string, len(keys))
		for i, k := range keys {
			kb, _ := json.Marshal(k)
			parts[i] = string(kb) + ":" + shuffledJSON(rng, x[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = shuffledJSON(rng, e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case float64:
		// Keep float-ness through the text ("2.0", not "2"), as the
		// metadata would be written by Python.
		s, _ := pyjson.FloatRepr(x)
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
