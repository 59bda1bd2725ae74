package memory_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/storage/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storage.Store { return memory.New() })
}

func TestUnencodableValues(t *testing.T) {
	storetest.RunSerialized(t, func(t *testing.T) storage.Store { return memory.New() })
}
