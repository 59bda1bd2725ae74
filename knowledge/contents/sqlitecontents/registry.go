package sqlitecontents

import (
	"context"

	"github.com/agno-go/agno/knowledge/contents"
)

func init() {
	contents.Register("sqlite", func(ctx context.Context, o contents.Options) (contents.Store, error) {
		return Open(ctx, Config{Path: o.Path, Table: o.Table, Logger: o.Logger})
	})
}
