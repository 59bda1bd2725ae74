package webfetch

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/agno-go/agno/internal/pyjson"
)

// Object is a JSON object with its keys in the order they came, as
// Python's json.loads keeps them; pyrepr writes it as a dict.
type Object = pyjson.Object

// Loads is Python's json.loads: objects as *Object, numbers as
// json.Number. Its error for a body that is no JSON at all is Python's
// ("Expecting value: line 1 column 1 (char 0)"), the text agno's tools
// show the model.
func Loads(data []byte) (any, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || !strings.ContainsRune(`{["-0123456789tfn`, rune(trimmed[0])) {
		pos := len(data) - len(trimmed)
		line := bytes.Count(data[:pos], []byte("\n")) + 1
		col := pos - bytes.LastIndexByte(data[:pos], '\n')
		//lint:ignore ST1005 agno's error text, which the model sees as it is
		return nil, fmt.Errorf("Expecting value: line %d column %d (char %d)", line, col, pos)
	}
	v, err := pyjson.Loads(data)
	if errors.Is(err, pyjson.ErrExtraData) {
		//lint:ignore ST1005 agno's error text, which the model sees as it is
		return nil, fmt.Errorf("Extra data after the JSON value")
	}
	return v, err
}
