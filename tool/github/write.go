package github

import (
	"context"
	"fmt"
	"slices"
	"strings"

	gh "github.com/google/go-github/v89/github"
)

type createPRArgs struct {
	RepoName            string `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	Title               string `json:"title" description:"(str) The title of the pull request."`
	Body                string `json:"body" description:"(str) The body text of the pull request."`
	Head                string `json:"head" description:"(str) The name of the branch where your changes are implemented."`
	Base                string `json:"base" description:"(str) The name of the branch you want the changes pulled into."`
	Draft               *bool  `json:"draft,omitempty" description:"(bool) Whether the pull request is a draft. Defaults to False."`
	MaintainerCanModify *bool  `json:"maintainer_can_modify,omitempty" description:"(bool) Whether maintainers can modify the PR. Defaults to True."`
}

type reviewArgs struct {
	RepoName      string   `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	PRNumber      int      `json:"pr_number" description:"(int) The number of the pull request."`
	Reviewers     []string `json:"reviewers" description:"(List[str]) List of user logins that will be requested to review."`
	TeamReviewers []string `json:"team_reviewers,omitempty" description:"(List[str]) List of team slugs that will be requested to review. Defaults to None."`
}

type createFileArgs struct {
	RepoName string  `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	Path     string  `json:"path" description:"(str) The path to the file in the repository."`
	Content  string  `json:"content" description:"(str) The content of the file."`
	Message  string  `json:"message" description:"(str) The commit message."`
	Branch   *string `json:"branch,omitempty" description:"(str) The branch to commit to. Defaults to repository's default branch."`
}

type updateFileArgs struct {
	RepoName string  `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	Path     string  `json:"path" description:"(str) The path to the file in the repository."`
	Content  string  `json:"content" description:"(str) The new content of the file."`
	Message  string  `json:"message" description:"(str) The commit message."`
	SHA      string  `json:"sha" description:"(str) The blob SHA of the file being replaced."`
	Branch   *string `json:"branch,omitempty" description:"(str) The branch to commit to. Defaults to repository's default branch."`
}

type deleteFileArgs struct {
	RepoName string  `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	Path     string  `json:"path" description:"(str) The path to the file in the repository."`
	Message  string  `json:"message" description:"(str) The commit message."`
	SHA      string  `json:"sha" description:"(str) The blob SHA of the file being deleted."`
	Branch   *string `json:"branch,omitempty" description:"(str) The branch to commit to. Defaults to repository's default branch."`
}

type branchContentArgs struct {
	RepoName string  `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	Branch   *string `json:"branch,omitempty" description:"(str) The branch name. Defaults to \"main\"."`
}

type createBranchArgs struct {
	RepoName     string  `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	BranchName   string  `json:"branch_name" description:"(str) The name of the new branch."`
	SourceBranch *string `json:"source_branch,omitempty" description:"(str) The source branch to create from. Defaults to repository's default branch."`
}

type defaultBranchArgs struct {
	RepoName   string `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	BranchName string `json:"branch_name" description:"(str) The name of the branch to set as default."`
}

func (t *tools) createPullRequest(ctx context.Context, a createPRArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	draft, modify := or(a.Draft, false), or(a.MaintainerCanModify, true)
	pr, _, err := t.c.PullRequests.Create(ctx, owner, name, &gh.NewPullRequest{Title: &a.Title, Body: &a.Body, Head: &a.Head, Base: &a.Base,
		Draft: &draft, MaintainerCanModify: &modify})
	if err != nil {
		return t.fail("creating pull request", err), nil
	}
	var base, head any
	if pr.Base != nil {
		base = sv(pr.Base.Ref)
	}
	if pr.Head != nil {
		head = sv(pr.Head.Ref)
	}
	return t.indent(obj("number", iv(pr.Number), "title", sv(pr.Title), "body", sv(pr.Body), "user", login(pr.User), "state", sv(pr.State),
		"created_at", iso(pr.CreatedAt), "html_url", sv(pr.HTMLURL), "base", base, "head", head, "mergeable", bv(pr.Mergeable))), nil
}

func (t *tools) createReviewRequest(ctx context.Context, a reviewArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	teams := a.TeamReviewers
	if teams == nil {
		teams = []string{}
	}
	if _, _, err := t.c.PullRequests.RequestReviewers(ctx, owner, name, a.PRNumber, gh.ReviewersRequest{Reviewers: a.Reviewers, TeamReviewers: teams}); err != nil {
		return t.fail("creating review request", err), nil
	}
	return t.indent(obj("message", fmt.Sprintf("Review request created for PR #%d", a.PRNumber),
		"requested_reviewers", strList(a.Reviewers), "requested_team_reviewers", strList(teams))), nil
}

// commitInfo is agno's {"sha", "message", "url"} of a contents commit.
func commitInfo(c gh.Commit) any {
	return obj("sha", sv(c.SHA), "message", sv(c.Message), "url", sv(c.HTMLURL))
}

func (t *tools) putFile(ctx context.Context, what, repoName, path string, opts *gh.RepositoryContentFileOptions, update bool) string {
	owner, name, err := splitRepo(repoName)
	if err != nil {
		return errObject(err.Error())
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	put := t.c.Repositories.CreateFile
	if update {
		put = t.c.Repositories.UpdateFile
	}
	res, _, err := put(ctx, owner, name, path, opts)
	if err != nil {
		return t.fail(what, err)
	}
	var p, sha, url any
	if res.Content != nil {
		p, sha, url = sv(res.Content.Path), sv(res.Content.SHA), sv(res.Content.HTMLURL)
	}
	return t.indent(obj("path", p, "sha", sha, "url", url, "commit", commitInfo(res.Commit)))
}

func (t *tools) createFile(ctx context.Context, a createFileArgs) (string, error) {
	return t.putFile(ctx, "creating file", a.RepoName, a.Path, &gh.RepositoryContentFileOptions{Message: &a.Message, Content: []byte(a.Content), Branch: a.Branch}, false), nil
}

func (t *tools) updateFile(ctx context.Context, a updateFileArgs) (string, error) {
	return t.putFile(ctx, "updating file", a.RepoName, a.Path, &gh.RepositoryContentFileOptions{Message: &a.Message, Content: []byte(a.Content), SHA: &a.SHA, Branch: a.Branch}, true), nil
}

func (t *tools) deleteFile(ctx context.Context, a deleteFileArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	res, _, err := t.c.Repositories.DeleteFile(ctx, owner, name, a.Path, &gh.RepositoryContentFileOptions{Message: &a.Message, SHA: &a.SHA, Branch: a.Branch})
	if err != nil {
		return t.fail("deleting file", err), nil
	}
	return t.indent(obj("message", fmt.Sprintf("File %s deleted successfully", a.Path), "commit", commitInfo(res.Commit))), nil
}

func (t *tools) getBranchContent(ctx context.Context, a branchContentArgs) (string, error) {
	branch := or(a.Branch, "main")
	return t.getDirectoryContent(ctx, dirArgs{RepoName: a.RepoName, Path: "", Ref: &branch})
}

func (t *tools) createBranch(ctx context.Context, a createBranchArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	source := ""
	if a.SourceBranch != nil {
		source = *a.SourceBranch
	} else {
		r, _, err := t.c.Repositories.Get(ctx, owner, name)
		if err != nil {
			return t.fail("creating branch", err), nil
		}
		source = r.GetDefaultBranch()
	}
	ref, _, err := t.c.Git.GetRef(ctx, owner, name, "heads/"+source)
	if err != nil {
		return t.fail("creating branch", err), nil
	}
	created, _, err := t.c.Git.CreateRef(ctx, owner, name, gh.CreateRef{Ref: "refs/heads/" + a.BranchName, SHA: ref.GetObject().GetSHA()})
	if err != nil {
		return t.fail("creating branch", err), nil
	}
	// agno turns the ref's API URL into the branch's page.
	url := strings.ReplaceAll(strings.ReplaceAll(created.GetURL(), "api.github.com/repos", "github.com"), "git/refs/heads", "tree")
	return t.indent(obj("name", a.BranchName, "sha", created.GetObject().GetSHA(), "url", url)), nil
}

func (t *tools) setDefaultBranch(ctx context.Context, a defaultBranchArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	names, err := t.branches(ctx, owner, name)
	if err != nil {
		return t.fail("setting default branch", err), nil
	}
	if !slices.Contains(names, a.BranchName) {
		return errObject(fmt.Sprintf("Branch '%s' does not exist", a.BranchName)), nil
	}
	if _, _, err := t.c.Repositories.Edit(ctx, owner, name, &gh.Repository{DefaultBranch: &a.BranchName}); err != nil {
		return t.fail("setting default branch", err), nil
	}
	return t.indent(obj("message", "Default branch changed to "+a.BranchName, "repository", a.RepoName, "default_branch", a.BranchName)), nil
}
