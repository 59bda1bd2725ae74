// Package sqlcond is a metadata filter, or part of one, as SQL: the
// conditions the SQL vector stores build, combined with AND, OR and NOT
// while keeping track of whether the SQL alone decides the filter.
package sqlcond

import "strings"

// Cond holds, as SQL, for every record the filter matches.
type Cond struct {
	// SQL is the condition; "" means no such condition is known (TRUE).
	SQL  string
	Args []any
	// Exact is set when SQL (TRUE when empty) matches exactly the records
	// the filter does; otherwise the candidates it selects are checked in
	// Go.
	Exact bool
}

// Dialect is what differs between databases: the literal for false.
type Dialect struct {
	False string
}

// Always matches every record, exactly.
func (Dialect) Always() Cond { return Cond{Exact: true} }

// Never matches no record, exactly.
func (d Dialect) Never() Cond { return Cond{SQL: d.False, Exact: true} }

// Unknown is a part SQL cannot decide: it selects every record.
func (Dialect) Unknown() Cond { return Cond{} }

func (d Dialect) isNever(c Cond) bool { return c.Exact && c.SQL == d.False }

// And holds where every part does.
func (d Dialect) And(cs ...Cond) Cond {
	out := Cond{Exact: true}
	var parts []string
	for _, c := range cs {
		if d.isNever(c) {
			return d.Never()
		}
		out.Exact = out.Exact && c.Exact
		if c.SQL != "" {
			parts = append(parts, c.SQL)
			out.Args = append(out.Args, c.Args...)
		}
	}
	if len(parts) > 0 {
		out.SQL = "(" + strings.Join(parts, " AND ") + ")"
	}
	return out
}

// Or holds where any part does; a part SQL cannot decide makes the whole
// undecided.
func (d Dialect) Or(cs ...Cond) Cond {
	if len(cs) == 0 {
		return d.Never()
	}
	for _, c := range cs {
		if c.Exact && c.SQL == "" {
			return d.Always()
		}
	}
	out := Cond{Exact: true}
	var parts []string
	for _, c := range cs {
		if c.SQL == "" {
			return d.Unknown()
		}
		out.Exact = out.Exact && c.Exact
		parts = append(parts, c.SQL)
		out.Args = append(out.Args, c.Args...)
	}
	out.SQL = "(" + strings.Join(parts, " OR ") + ")"
	return out
}

// Not holds where c does not; only an exact c can be negated in SQL.
func (d Dialect) Not(c Cond) Cond {
	switch {
	case !c.Exact:
		return d.Unknown()
	case c.SQL == "":
		return d.Never()
	case c.SQL == d.False:
		return d.Always()
	}
	return Cond{SQL: "NOT " + c.SQL, Args: c.Args, Exact: true}
}

// Seq concatenates SQL text (strings) and conditions (Cond, their
// arguments in order) into one condition.
func Seq(parts ...any) Cond {
	var c Cond
	var b strings.Builder
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			b.WriteString(x)
		case Cond:
			b.WriteString(x.SQL)
			c.Args = append(c.Args, x.Args...)
		}
	}
	c.SQL = b.String()
	return c
}

// Exact marks c as deciding its part of the filter alone.
func Exact(c Cond) Cond { c.Exact = true; return c }
