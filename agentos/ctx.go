package agentos

import "context"

// nilCtx is used where a listing resolves static tools (no I/O happens).
var nilCtx = context.Background()
