package run

import "context"

// Executor runs requests: an agent or a team. Teams take executors as
// members, workflows as step executors, and tools wrap them to make an
// agent the tool of another.
type Executor interface {
	ID() string
	Name() string
	Execute(ctx context.Context, req *Request, emit Emitter) (*Output, error)
	ExecuteContinue(ctx context.Context, req *ContinueRequest, emit Emitter) (*Output, error)
}
