package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	gh "github.com/google/go-github/v89/github"
)

type prCommentsArgs struct {
	RepoName             string `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	PRNumber             int    `json:"pr_number" description:"(int) The number of the pull request."`
	IncludeIssueComments *bool  `json:"include_issue_comments,omitempty" description:"(bool) Whether to include general PR comments. Defaults to True."`
}

type createPRCommentArgs struct {
	RepoName string `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	PRNumber int    `json:"pr_number" description:"(int) The number of the pull request."`
	Body     string `json:"body" description:"(str) The text of the comment."`
	CommitID string `json:"commit_id" description:"(str) The SHA of the commit to comment on."`
	Path     string `json:"path" description:"(str) The relative path to the file to comment on."`
	Position int    `json:"position" description:"(int) The line index in the diff to comment on."`
}

type editPRCommentArgs struct {
	RepoName  string `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	CommentID int64  `json:"comment_id" description:"(int) The id of the comment to edit."`
	Body      string `json:"body" description:"(str) The new text of the comment."`
}

type createRepoArgs struct {
	Name         string  `json:"name" description:"(str) The name of the repository."`
	Private      *bool   `json:"private,omitempty" description:"(bool) Whether the repository is private. Defaults to False."`
	Description  *string `json:"description,omitempty" description:"(str) A short description of the repository."`
	AutoInit     *bool   `json:"auto_init,omitempty" description:"(bool) Whether to initialize the repository with a README. Defaults to False."`
	Organization *string `json:"organization,omitempty" description:"(str) Name of organization to create repo in. If None, creates in user account."`
}

type prCountArgs struct {
	RepoName string  `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	State    *string `json:"state,omitempty" description:"(str) The state of the PRs to count ('open', 'closed', 'all'). Defaults to 'all'."`
	Author   *string `json:"author,omitempty" description:"(str) Filter PRs by author username."`
	Base     *string `json:"base,omitempty" description:"(str) Filter PRs by base branch name."`
	Head     *string `json:"head,omitempty" description:"(str) Filter PRs by head branch name."`
}

func (t *tools) getPullRequestComments(ctx context.Context, a prCommentsArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	// PyGithub's get_pull fetches the pull request first: a wrong number
	// fails here as in agno.
	if _, _, err := t.c.PullRequests.Get(ctx, owner, name, a.PRNumber); err != nil {
		return t.fail("getting pull request comments", err), nil
	}
	var comments []any
	var created []string
	ropts := &gh.PullRequestListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for range t.maxPages {
		cs, resp, err := t.c.PullRequests.ListComments(ctx, owner, name, a.PRNumber, ropts)
		if err != nil {
			return t.fail("getting pull request comments", err), nil
		}
		for _, c := range cs {
			comments = append(comments, obj("id", i64(c.ID), "body", sv(c.Body), "user", login(c.User), "created_at", iso(c.CreatedAt),
				"updated_at", iso(c.UpdatedAt), "path", sv(c.Path), "position", iv(c.Position), "commit_id", sv(c.CommitID),
				"url", sv(c.HTMLURL), "type", "review_comment"))
			created = append(created, fmt.Sprint(iso(c.CreatedAt)))
		}
		if resp.NextPage == 0 {
			break
		}
		ropts.Page = resp.NextPage
	}
	if or(a.IncludeIssueComments, true) {
		iopts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
		for range t.maxPages {
			cs, resp, err := t.c.Issues.ListComments(ctx, owner, name, a.PRNumber, iopts)
			if err != nil {
				return t.fail("getting pull request comments", err), nil
			}
			for _, c := range cs {
				comments = append(comments, obj("id", i64(c.ID), "body", sv(c.Body), "user", login(c.User), "created_at", iso(c.CreatedAt),
					"updated_at", iso(c.UpdatedAt), "url", sv(c.HTMLURL), "type", "issue_comment"))
				created = append(created, fmt.Sprint(iso(c.CreatedAt)))
			}
			if resp.NextPage == 0 {
				break
			}
			iopts.Page = resp.NextPage
		}
	}
	return t.indent(byNewest(comments, created)), nil
}

func (t *tools) createPullRequestComment(ctx context.Context, a createPRCommentArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	c, _, err := t.c.PullRequests.CreateComment(ctx, owner, name, a.PRNumber, &gh.PullRequestComment{Body: &a.Body, CommitID: &a.CommitID, Path: &a.Path, Position: &a.Position})
	if err != nil {
		return t.fail("creating pull request comment", err), nil
	}
	return t.indent(obj("id", i64(c.ID), "body", sv(c.Body), "user", login(c.User), "created_at", iso(c.CreatedAt), "path", sv(c.Path),
		"position", iv(c.Position), "commit_id", sv(c.CommitID), "url", sv(c.HTMLURL))), nil
}

// editPullRequestComment edits the comment by its id. agno scans the
// repository's review comments instead and, when none has the id,
// reports the last one unedited; here a missing id is agno's "Could not
// find" text.
func (t *tools) editPullRequestComment(ctx context.Context, a editPRCommentArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	c, _, err := t.c.PullRequests.EditComment(ctx, owner, name, a.CommentID, &gh.PullRequestComment{Body: &a.Body})
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
		return fmt.Sprintf("Could not find comment #%d in repository: %s", a.CommentID, a.RepoName), nil
	}
	if err != nil {
		return t.fail("editing pull request comment", err), nil
	}
	return t.indent(obj("id", i64(c.ID), "body", sv(c.Body), "user", login(c.User), "updated_at", iso(c.UpdatedAt), "path", sv(c.Path),
		"position", iv(c.Position), "commit_id", sv(c.CommitID), "url", sv(c.HTMLURL))), nil
}

func (t *tools) createRepository(ctx context.Context, a createRepoArgs) (string, error) {
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	private, autoInit, desc := or(a.Private, false), or(a.AutoInit, false), or(a.Description, "")
	org := or(a.Organization, "")
	r, _, err := t.c.Repositories.Create(ctx, org, &gh.Repository{Name: &a.Name, Private: &private, Description: &desc, AutoInit: &autoInit})
	if err != nil {
		return t.fail("creating repository", err), nil
	}
	return t.indent(obj("name", sv(r.FullName), "url", sv(r.HTMLURL), "private", bv(r.Private), "description", sv(r.Description))), nil
}

func (t *tools) getPullRequestCount(ctx context.Context, a prCountArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	state := or(a.State, "all")
	opts := &gh.PullRequestListOptions{State: state, Base: or(a.Base, ""), Head: or(a.Head, "")}
	if a.Author == nil || *a.Author == "" {
		// PyGithub's totalCount: one item a page, the count is the last
		// page's number from the Link header.
		opts.PerPage = 1
		prs, resp, err := t.c.PullRequests.List(ctx, owner, name, opts)
		if err != nil {
			return t.fail("counting pull requests", err), nil
		}
		count := len(prs)
		if resp.LastPage > 0 {
			count = resp.LastPage
		}
		return t.indent(obj("count", count)), nil
	}
	count := 0
	opts.PerPage = 100
	for range t.maxPages {
		prs, resp, err := t.c.PullRequests.List(ctx, owner, name, opts)
		if err != nil {
			return t.fail("counting pull requests", err), nil
		}
		for _, pr := range prs {
			if pr.GetUser().GetLogin() == *a.Author && (state == "all" || pr.GetState() == state) {
				count++
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return t.indent(obj("count", count)), nil
}
