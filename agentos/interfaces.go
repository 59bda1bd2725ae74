package agentos

import (
	"context"
	"errors"
	"net/http"

	"github.com/agno-go/agno/run"
)

// The interfaces of Config.Interfaces (interface.go): checked and
// started at New, stopped at Close, their rows served and documented with
// the others, their entries listed in /config.

// checkInterfaces validates each interface against the catalog (New).
func checkInterfaces(ifaces []Interface, cat *catalog) error {
	for _, i := range ifaces {
		if i == nil {
			return errors.New("agentos: Config.Interfaces holds a nil Interface")
		}
		if err := i.Check(cat.Catalog); err != nil {
			return err
		}
	}
	return nil
}

// startInterfaces starts each interface with its Host; when one fails,
// those started are stopped.
func (o *OS) startInterfaces() error {
	for n, i := range o.cfg.Interfaces {
		if err := i.Start(&Host{o: o}); err != nil {
			o.stopInterfaces(n)
			return err
		}
	}
	return nil
}

// stopInterfaces stops the first n interfaces, last started first.
func (o *OS) stopInterfaces(n int) {
	for i := n - 1; i >= 0; i-- {
		o.cfg.Interfaces[i].Stop()
	}
}

// interfaces is /config interfaces: agno's [{type, version, route}].
func (o *OS) interfaces() []any {
	out := []any{}
	for _, i := range o.cfg.Interfaces {
		out = append(out, i.Listing()...)
	}
	return out
}

// interfaceAPIRoutes are the configured interfaces' routes: each
// interface's own code declares them, under its configured prefix.
func (o *OS) interfaceAPIRoutes() []apiRoute {
	var out []apiRoute
	for _, i := range o.cfg.Interfaces {
		out = append(out, i.Routes()...)
	}
	return out
}

// remoteRoutes are the rows a service outside this machine calls by
// design (Route.Remote): protected mode lets them through, their
// signature guards them.
func remoteRoutes(rows []apiRoute) []apiRoute {
	var out []apiRoute
	for _, rt := range rows {
		if rt.Remote != "" && rt.IsOpen() {
			out = append(out, rt)
		}
	}
	return out
}

// remotePath reports a request for the path of one of rows, whatever
// its method.
func remotePath(rows []apiRoute, r *http.Request) bool {
	for _, rt := range rows {
		if _, ok := matchPath(rt.Path(), r); ok {
			return true
		}
	}
	return false
}

// answerFor is how the run p continues once its approvals are resolved:
// the answer of the interface that started it, or the served agent's or
// team's (ok false: not served).
func (o *OS) answerFor(ctx context.Context, p Paused) (Answer, bool) {
	for _, hook := range o.approvalHooks {
		if a, ok := hook(ctx, p); ok {
			if a.Executor == nil {
				a.Executor = o.servedExecutor(p.Kind, p.ID)
			}
			return a, a.Executor != nil
		}
	}
	ex := o.servedExecutor(p.Kind, p.ID)
	return Answer{Executor: ex}, ex != nil
}

// teeEmit sends each event to the OS's emitter, then to the
// interface's, which decides whether the run goes on.
func teeEmit(own, iface run.Emitter) run.Emitter {
	return func(ev run.Event) bool {
		own(ev)
		return iface(ev)
	}
}
