package document

import (
	"encoding/json"
	"testing"
)

func TestToDict(t *testing.T) {
	d := &Document{Name: "n", Content: "c", ID: "id", MetaData: map[string]any{"page": 1}, Embedding: []float32{1}}
	b, _ := json.Marshal(d.ToDict())
	if string(b) != `{"name":"n","meta_data":{"page":1},"content":"c"}` {
		t.Errorf("to_dict = %s", b)
	}
	// A nameless document has no name key; meta_data is always there.
	b, _ = json.Marshal((&Document{Content: "c"}).ToDict())
	if string(b) != `{"meta_data":{},"content":"c"}` {
		t.Errorf("to_dict without name = %s", b)
	}
}

func TestClone(t *testing.T) {
	d := &Document{Content: "c", MetaData: map[string]any{"a": 1}, Embedding: []float32{1, 2}}
	c := d.Clone()
	c.MetaData["a"] = 2
	c.Embedding[0] = 9
	if d.MetaData["a"] != 1 || d.Embedding[0] != 1 {
		t.Error("Clone shares metadata or embedding with the original")
	}
}
