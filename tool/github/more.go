package github

import (
	"context"
	"fmt"
	"sort"

	gh "github.com/google/go-github/v89/github"

	"github.com/agno-go/agno/internal/pyrepr"
)

type branchesArgs struct {
	RepoName string `json:"repo_name" description:"(str) Full repository name (e.g., 'owner/repo')."`
}

type assignArgs struct {
	RepoName    string   `json:"repo_name" description:"(str) The full name of the repository."`
	IssueNumber int      `json:"issue_number" description:"(int) The number of the issue."`
	Assignees   []string `json:"assignees" description:"(List[str]) A list of usernames to assign."`
}

type labelArgs struct {
	RepoName    string   `json:"repo_name" description:"(str) The full name of the repository."`
	IssueNumber int      `json:"issue_number" description:"(int) The number of the issue."`
	Labels      []string `json:"labels" description:"(List[str]) A list of label names to add."`
}

type editIssueArgs struct {
	RepoName    string  `json:"repo_name" description:"(str) The full name of the repository."`
	IssueNumber int     `json:"issue_number" description:"(int) The number of the issue."`
	Title       *string `json:"title,omitempty" description:"(str) The new title for the issue."`
	Body        *string `json:"body,omitempty" description:"(str) The new body content for the issue."`
}

func strList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func (t *tools) listBranches(ctx context.Context, a branchesArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	names, err := t.branches(ctx, owner, name)
	if err != nil {
		return t.fail("listing branches", err), nil
	}
	return t.indent(strList(names)), nil
}

// branches are the repository's branch names, max_pages pages at most.
func (t *tools) branches(ctx context.Context, owner, name string) ([]string, error) {
	var names []string
	opts := &gh.BranchListOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for range t.maxPages {
		bs, resp, err := t.c.Repositories.ListBranches(ctx, owner, name, opts)
		if err != nil {
			return nil, err
		}
		for _, b := range bs {
			names = append(names, b.GetName())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return names, nil
}

func (t *tools) getRepositoryLanguages(ctx context.Context, a repoArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	langs, _, err := t.c.Repositories.ListLanguages(ctx, owner, name)
	if err != nil {
		return t.fail("getting repository languages", err), nil
	}
	// GitHub lists the languages by bytes, largest first; the SDK's map
	// forgets that order, so it is restored.
	keys := make([]string, 0, len(langs))
	for k := range langs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if langs[keys[i]] != langs[keys[j]] {
			return langs[keys[i]] > langs[keys[j]]
		}
		return keys[i] < keys[j]
	})
	o := obj()
	for _, k := range keys {
		o.Set(k, langs[k])
	}
	return t.indent(o), nil
}

func (t *tools) getRepositoryStars(ctx context.Context, a repoArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	r, _, err := t.c.Repositories.Get(ctx, owner, name)
	if err != nil {
		return t.fail("getting repository stars", err), nil
	}
	return t.indent(obj("stars", iv(r.StargazersCount))), nil
}

// edit is PyGithub's issue.edit: PATCH the issue, then agno's message.
func (t *tools) edit(ctx context.Context, what, repoName string, number int, req *gh.IssueRequest, message string) string {
	owner, name, err := splitRepo(repoName)
	if err != nil {
		return errObject(err.Error())
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	if _, _, err := t.c.Issues.Edit(ctx, owner, name, number, req); err != nil {
		return t.fail(what, err)
	}
	return t.indent(obj("message", message))
}

func (t *tools) closeIssue(ctx context.Context, a issueArgs) (string, error) {
	state := "closed"
	return t.edit(ctx, "closing issue", a.RepoName, a.IssueNumber, &gh.IssueRequest{State: &state}, fmt.Sprintf("Issue #%d closed.", a.IssueNumber)), nil
}

func (t *tools) reopenIssue(ctx context.Context, a issueArgs) (string, error) {
	state := "open"
	return t.edit(ctx, "reopening issue", a.RepoName, a.IssueNumber, &gh.IssueRequest{State: &state}, fmt.Sprintf("Issue #%d reopened.", a.IssueNumber)), nil
}

func (t *tools) assignIssue(ctx context.Context, a assignArgs) (string, error) {
	as := append([]string{}, a.Assignees...)
	return t.edit(ctx, "assigning issue", a.RepoName, a.IssueNumber, &gh.IssueRequest{Assignees: &as},
		fmt.Sprintf("Issue #%d assigned to %s.", a.IssueNumber, pyrepr.Repr(strList(a.Assignees)))), nil
}

func (t *tools) labelIssue(ctx context.Context, a labelArgs) (string, error) {
	ls := append([]string{}, a.Labels...)
	return t.edit(ctx, "labeling issue", a.RepoName, a.IssueNumber, &gh.IssueRequest{Labels: &ls},
		fmt.Sprintf("Labels %s added to issue #%d.", pyrepr.Repr(strList(a.Labels)), a.IssueNumber)), nil
}

func (t *tools) editIssue(ctx context.Context, a editIssueArgs) (string, error) {
	// Only the fields given are sent: a missing body leaves it as it is.
	return t.edit(ctx, "editing issue", a.RepoName, a.IssueNumber, &gh.IssueRequest{Title: a.Title, Body: a.Body},
		fmt.Sprintf("Issue #%d updated.", a.IssueNumber)), nil
}

func (t *tools) listIssueComments(ctx context.Context, a issueArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	comments := []any{}
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for range t.maxPages {
		cs, resp, err := t.c.Issues.ListComments(ctx, owner, name, a.IssueNumber, opts)
		if err != nil {
			return t.fail("listing issue comments", err), nil
		}
		for _, c := range cs {
			comments = append(comments, obj("id", i64(c.ID), "user", login(c.User), "body", sv(c.Body), "created_at", iso(c.CreatedAt), "url", sv(c.HTMLURL)))
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return t.indent(comments), nil
}
