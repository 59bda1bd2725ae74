package github

import (
	"context"
	"fmt"
	"sort"

	gh "github.com/google/go-github/v89/github"
)

type deleteRepoArgs struct {
	// agno's docstring indents its Args block under the summary, so its
	// parser finds no description for repo_name.
	RepoName string `json:"repo_name"`
}

func (t *tools) deleteRepository(ctx context.Context, a deleteRepoArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	if _, err := t.c.Repositories.Delete(ctx, owner, name); err != nil {
		return t.fail("deleting repository", err), nil
	}
	return t.indent(obj("message", fmt.Sprintf("Repository %s deleted successfully", a.RepoName))), nil
}

// byNewest orders comments newest first, keeping equal times in order
// as Python's stable sort(reverse=True) does.
func byNewest(items []any, created []string) []any {
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return created[idx[i]] > created[idx[j]] })
	out := []any{}
	for _, i := range idx {
		out = append(out, items[i])
	}
	return out
}

func (t *tools) getPullRequestWithDetails(ctx context.Context, a prArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	fail := func(err error) (string, error) { return t.fail("getting pull request details", err), nil }
	pr, _, err := t.c.PullRequests.Get(ctx, owner, name, a.PRNumber)
	if err != nil {
		return fail(err)
	}
	var review, issue []any
	var created []string
	ropts := &gh.PullRequestListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for range t.maxPages {
		cs, resp, err := t.c.PullRequests.ListComments(ctx, owner, name, a.PRNumber, ropts)
		if err != nil {
			return fail(err)
		}
		for _, c := range cs {
			review = append(review, obj("id", i64(c.ID), "body", sv(c.Body), "user", login(c.User), "created_at", iso(c.CreatedAt),
				"path", sv(c.Path), "position", iv(c.Position), "commit_id", sv(c.CommitID), "url", sv(c.HTMLURL), "type", "review_comment"))
			created = append(created, fmt.Sprint(iso(c.CreatedAt)))
		}
		if resp.NextPage == 0 {
			break
		}
		ropts.Page = resp.NextPage
	}
	iopts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for range t.maxPages {
		cs, resp, err := t.c.Issues.ListComments(ctx, owner, name, a.PRNumber, iopts)
		if err != nil {
			return fail(err)
		}
		for _, c := range cs {
			issue = append(issue, obj("id", i64(c.ID), "body", sv(c.Body), "user", login(c.User), "created_at", iso(c.CreatedAt),
				"url", sv(c.HTMLURL), "type", "issue_comment"))
			created = append(created, fmt.Sprint(iso(c.CreatedAt)))
		}
		if resp.NextPage == 0 {
			break
		}
		iopts.Page = resp.NextPage
	}
	commits := []any{}
	copts := &gh.ListOptions{PerPage: 100}
	for range t.maxPages {
		cs, resp, err := t.c.PullRequests.ListCommits(ctx, owner, name, a.PRNumber, copts)
		if err != nil {
			return fail(err)
		}
		for _, c := range cs {
			var author, date any = "Unknown", nil
			if c.Commit != nil && c.Commit.Author != nil {
				author, date = sv(c.Commit.Author.Name), iso(c.Commit.Author.Date)
			}
			var msg any
			if c.Commit != nil {
				msg = sv(c.Commit.Message)
			}
			commits = append(commits, obj("sha", sv(c.SHA), "message", msg, "author", author, "date", date, "url", sv(c.HTMLURL)))
		}
		if resp.NextPage == 0 {
			break
		}
		copts.Page = resp.NextPage
	}
	files := []any{}
	fopts := &gh.ListOptions{PerPage: 100}
	for range t.maxPages {
		fs, resp, err := t.c.PullRequests.ListFiles(ctx, owner, name, a.PRNumber, fopts)
		if err != nil {
			return fail(err)
		}
		for _, f := range fs {
			files = append(files, obj("filename", sv(f.Filename), "status", sv(f.Status), "additions", iv(f.Additions),
				"deletions", iv(f.Deletions), "changes", iv(f.Changes), "patch", sv(f.Patch)))
		}
		if resp.NextPage == 0 {
			break
		}
		fopts.Page = resp.NextPage
	}
	merged, _, err := t.c.PullRequests.IsMerged(ctx, owner, name, a.PRNumber)
	if err != nil {
		return fail(err)
	}
	labels := []any{}
	for _, l := range pr.Labels {
		labels = append(labels, sv(l.Name))
	}
	var base, head any
	if pr.Base != nil {
		base = sv(pr.Base.Ref)
	}
	if pr.Head != nil {
		head = sv(pr.Head.Ref)
	}
	all := byNewest(append(append([]any{}, review...), issue...), created)
	return t.indent(obj("number", iv(pr.Number), "title", sv(pr.Title), "user", login(pr.User), "state", sv(pr.State),
		"created_at", iso(pr.CreatedAt), "updated_at", iso(pr.UpdatedAt), "html_url", sv(pr.HTMLURL), "body", sv(pr.Body),
		"base", base, "head", head, "merged", merged, "mergeable", bv(pr.Mergeable), "additions", iv(pr.Additions),
		"deletions", iv(pr.Deletions), "changed_files", iv(pr.ChangedFiles), "labels", labels,
		"comments_count", obj("review_comments", len(review), "issue_comments", len(issue), "total", len(all)),
		"comments", all, "commits", commits, "files_changed", files)), nil
}
