package sqlitevec

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/agno-go/agno/knowledge/internal/metajson"
)

// Vectors are stored as sqlite-vec reads them: float32s in the machine's
// byte order, back to back.

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.NativeEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("sqlitevec: stored vector has %d bytes, not a multiple of 4", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.NativeEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

func sqNorm(v []float32) float64 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	return n
}

// decodeMeta reads stored metadata with Python's number types.
func decodeMeta(s string) (map[string]any, error) {
	m, err := metajson.Decode(s)
	if err != nil {
		return nil, fmt.Errorf("sqlitevec: stored metadata: %w", err)
	}
	return m, nil
}
