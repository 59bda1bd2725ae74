package github

import (
	"context"
	"sort"
	"strings"
	"unicode/utf8"

	gh "github.com/google/go-github/v89/github"

	"github.com/agno-go/agno/tool"
)

type searchReposArgs struct {
	Query   string  `json:"query" description:"(str) The search query keywords."`
	Sort    *string `json:"sort,omitempty" description:"(str) The field to sort results by. Can be 'stars', 'forks', or 'updated'. Defaults to 'stars'."`
	Order   *string `json:"order,omitempty" description:"(str) The order of results. Can be 'asc' or 'desc'. Defaults to 'desc'."`
	Page    *int    `json:"page,omitempty" description:"(int) Page number of results to return, counting from 1. Defaults to 1."`
	PerPage *int    `json:"per_page,omitempty" description:"(int) Number of results per page. Max 100. Defaults to 30."`
}

type noArgs struct{}

type repoArgs struct {
	RepoName string `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
}

type prArgs struct {
	RepoName string `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	PRNumber int    `json:"pr_number" description:"(int) The number of the pull request."`
}

type createIssueArgs struct {
	RepoName string  `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	Title    string  `json:"title" description:"(str) The title of the issue."`
	Body     *string `json:"body,omitempty" description:"(str) The body content of the issue."`
}

type pullsArgs struct {
	RepoName  string  `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	State     *string `json:"state,omitempty" description:"(str) State of the PRs to retrieve. Can be 'open', 'closed', or 'all'. Defaults to 'open'."`
	Sort      *string `json:"sort,omitempty" description:"(str) What to sort results by. Can be 'created', 'updated', 'popularity', 'long-running'. Defaults to 'created'."`
	Direction *string `json:"direction,omitempty" description:"(str) The direction of the sort. Can be 'asc' or 'desc'. Defaults to 'desc'."`
	Limit     *int    `json:"limit,omitempty" description:"(int) The maximum number of pull requests to return. Defaults to 20."`
}

type listIssuesArgs struct {
	RepoName string  `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	State    *string `json:"state,omitempty" description:"(str) The state of issues to list ('open', 'closed', 'all'). Defaults to 'open'."`
	Page     *int    `json:"page,omitempty" description:"(int) Page number of results to return, counting from 1. Defaults to 1."`
	PerPage  *int    `json:"per_page,omitempty" description:"(int) Number of results per page. Defaults to 20."`
}

type issueArgs struct {
	RepoName    string `json:"repo_name" description:"(str) The full name of the repository."`
	IssueNumber int    `json:"issue_number" description:"(int) The number of the issue."`
}

type commentArgs struct {
	RepoName    string `json:"repo_name" description:"(str) The full name of the repository."`
	IssueNumber int    `json:"issue_number" description:"(int) The number of the issue."`
	CommentBody string `json:"comment_body" description:"(str) The content of the comment."`
}

type fileArgs struct {
	RepoName string  `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	Path     string  `json:"path" description:"(str) The path to the file in the repository."`
	Ref      *string `json:"ref,omitempty" description:"(str) The name of the commit/branch/tag. Defaults to the repository's default branch."`
}

type dirArgs struct {
	RepoName string  `json:"repo_name" description:"(str) The full name of the repository (e.g., 'owner/repo')."`
	Path     string  `json:"path" description:"(str) The path to the directory in the repository. Use empty string for root."`
	Ref      *string `json:"ref,omitempty" description:"(str) The name of the commit/branch/tag. Defaults to repository's default branch."`
}

func (t *tools) functions() ([]*tool.Function, error) {
	var e tool.Enabled
	on := e.If(true)
	on(tool.New("search_repositories", "Search for repositories on GitHub.\nNote: GitHub's Search API has a maximum limit of 1000 results per query.", t.searchRepositories))
	on(tool.New("list_repositories", "List all repositories for the authenticated user.", t.listRepositories))
	on(tool.New("get_repository", "Get details of a specific repository.", t.getRepository))
	on(tool.New("get_pull_request", "Get details of a specific pull request.", t.getPullRequest))
	on(tool.New("get_pull_request_changes", "Get the changes (files modified) in a pull request.", t.getPullRequestChanges))
	on(tool.New("create_issue", "Create an issue in a repository.", t.createIssue))
	on(tool.New("create_repository", "Create a new repository on GitHub.", t.createRepository))
	on(tool.New("delete_repository", "Delete a repository (requires admin permissions).\nArgs:\n        repo_name (str): The full name of the repository to delete (e.g., 'owner/repo').", t.deleteRepository))
	on(tool.New("list_branches", "List all branches in a repository.", t.listBranches))
	on(tool.New("get_repository_languages", "Get the languages used in a repository.", t.getRepositoryLanguages))
	on(tool.New("get_pull_request_count", "Get the count of pull requests for a repository based on query parameters.", t.getPullRequestCount))
	on(tool.New("get_repository_stars", "Get the number of stars for a repository.", t.getRepositoryStars))
	on(tool.New("get_pull_requests", "Get pull requests matching query parameters.", t.getPullRequests))
	on(tool.New("get_pull_request_comments", "Get all comments on a pull request.", t.getPullRequestComments))
	on(tool.New("create_pull_request_comment", "Create a comment on a specific line of a specific file in a pull request.", t.createPullRequestComment))
	on(tool.New("edit_pull_request_comment", "Edit an existing pull request comment.", t.editPullRequestComment))
	on(tool.New("get_pull_request_with_details", "Get comprehensive details of a pull request including comments, labels, and metadata.", t.getPullRequestWithDetails))
	on(tool.New("get_repository_with_stats", "Get comprehensive repository information including statistics.", t.getRepositoryWithStats))
	on(tool.New("list_issues", "List issues for a repository with pagination.", t.listIssues))
	on(tool.New("get_issue", "Get details of a specific issue.", t.getIssue))
	on(tool.New("comment_on_issue", "Add a comment to an issue.", t.commentOnIssue))
	on(tool.New("close_issue", "Close an issue.", t.closeIssue))
	on(tool.New("reopen_issue", "Reopen a closed issue.", t.reopenIssue))
	on(tool.New("assign_issue", "Assign users to an issue.", t.assignIssue))
	on(tool.New("label_issue", "Add labels to an issue.", t.labelIssue))
	on(tool.New("list_issue_comments", "List comments on an issue.", t.listIssueComments))
	on(tool.New("edit_issue", "Edit the title or body of an issue.", t.editIssue))
	on(tool.New("create_pull_request", "Create a new pull request in a repository.", t.createPullRequest))
	on(tool.New("create_file", "Create a new file in a repository.", t.createFile))
	on(tool.New("get_file_content", "Get the content of a file in a repository.", t.getFileContent))
	on(tool.New("update_file", "Update an existing file in a repository.", t.updateFile))
	on(tool.New("delete_file", "Delete a file from a repository.", t.deleteFile))
	on(tool.New("get_directory_content", "Get the contents of a directory in a repository.", t.getDirectoryContent))
	on(tool.New("get_branch_content", "Get the root directory content of a specific branch.", t.getBranchContent))
	on(tool.New("create_branch", "Create a new branch in a repository.", t.createBranch))
	on(tool.New("set_default_branch", "Set the default branch for a repository.", t.setDefaultBranch))
	on(tool.New("search_code", "Search for code in GitHub repositories.", t.searchCode))
	on(tool.New("search_issues_and_prs", "Search for issues and pull requests on GitHub.", t.searchIssuesAndPRs))
	on(tool.New("create_review_request", "Create a review request for a pull request.", t.createReviewRequest))
	return e.Functions()
}

func or[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

func (t *tools) searchRepositories(ctx context.Context, a searchReposArgs) (string, error) {
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	// GitHub's largest page is 100.
	perPage := min(or(a.PerPage, 30), 100)
	res, _, err := t.c.Search.Repositories(ctx, a.Query, &gh.SearchOptions{
		Sort: or(a.Sort, "stars"), Order: or(a.Order, "desc"),
		ListOptions: gh.ListOptions{Page: or(a.Page, 1), PerPage: perPage},
	})
	if err != nil {
		return t.fail("searching repositories", err), nil
	}
	repos := []any{}
	for _, r := range res.Repositories {
		repos = append(repos, obj("full_name", sv(r.FullName), "description", sv(r.Description), "url", sv(r.HTMLURL),
			"stars", iv(r.StargazersCount), "forks", iv(r.ForksCount), "language", sv(r.Language)))
		if len(repos) >= perPage {
			break
		}
	}
	return t.indent(repos), nil
}

func (t *tools) listRepositories(ctx context.Context, _ noArgs) (string, error) {
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	names := []any{}
	opts := &gh.RepositoryListByAuthenticatedUserOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for range t.maxPages {
		repos, resp, err := t.c.Repositories.ListByAuthenticatedUser(ctx, opts)
		if err != nil {
			return t.fail("listing repositories", err), nil
		}
		for _, r := range repos {
			names = append(names, sv(r.FullName))
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return t.indent(names), nil
}

func (t *tools) getRepository(ctx context.Context, a repoArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	r, _, err := t.c.Repositories.Get(ctx, owner, name)
	if err != nil {
		return t.fail("getting repository", err), nil
	}
	var license any
	if r.License != nil {
		license = sv(r.License.Name)
	}
	return t.indent(obj("name", sv(r.FullName), "description", sv(r.Description), "url", sv(r.HTMLURL),
		"stars", iv(r.StargazersCount), "forks", iv(r.ForksCount), "open_issues", iv(r.OpenIssuesCount),
		"language", sv(r.Language), "license", license, "default_branch", sv(r.DefaultBranch))), nil
}

func (t *tools) getPullRequest(ctx context.Context, a prArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	pr, _, err := t.c.PullRequests.Get(ctx, owner, name, a.PRNumber)
	if err != nil {
		return t.fail("getting pull request", err), nil
	}
	// PyGithub's is_merged() asks GET …/merge (204 merged, 404 not).
	merged, _, err := t.c.PullRequests.IsMerged(ctx, owner, name, a.PRNumber)
	if err != nil {
		return t.fail("getting pull request", err), nil
	}
	return t.indent(obj("number", iv(pr.Number), "title", sv(pr.Title), "user", login(pr.User), "body", sv(pr.Body),
		"created_at", iso(pr.CreatedAt), "updated_at", iso(pr.UpdatedAt), "state", sv(pr.State), "merged", merged,
		"mergeable", bv(pr.Mergeable), "url", sv(pr.HTMLURL))), nil
}

func (t *tools) getPullRequestChanges(ctx context.Context, a prArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	changes := []any{}
	opts := &gh.ListOptions{PerPage: 100}
	// GitHub lists at most 3000 files of a pull request, 100 a page.
	for range max(t.maxPages, 1) {
		files, resp, err := t.c.PullRequests.ListFiles(ctx, owner, name, a.PRNumber, opts)
		if err != nil {
			return t.fail("getting pull request changes", err), nil
		}
		for _, f := range files {
			changes = append(changes, obj("filename", sv(f.Filename), "status", sv(f.Status), "additions", iv(f.Additions),
				"deletions", iv(f.Deletions), "changes", iv(f.Changes), "raw_url", sv(f.RawURL), "blob_url", sv(f.BlobURL), "patch", sv(f.Patch)))
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return t.indent(changes), nil
}

func (t *tools) createIssue(ctx context.Context, a createIssueArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	is, _, err := t.c.Issues.Create(ctx, owner, name, &gh.IssueRequest{Title: &a.Title, Body: a.Body})
	if err != nil {
		return t.fail("creating issue", err), nil
	}
	return t.indent(obj("id", i64(is.ID), "number", iv(is.Number), "title", sv(is.Title), "body", sv(is.Body),
		"url", sv(is.HTMLURL), "state", sv(is.State), "created_at", iso(is.CreatedAt), "user", login(is.User))), nil
}

func (t *tools) getPullRequests(ctx context.Context, a pullsArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	limit := or(a.Limit, 50)
	prs := []any{}
	opts := &gh.PullRequestListOptions{State: or(a.State, "open"), Sort: or(a.Sort, "created"), Direction: or(a.Direction, "desc"),
		ListOptions: gh.ListOptions{PerPage: 100}}
	for len(prs) < limit {
		page, resp, err := t.c.PullRequests.List(ctx, owner, name, opts)
		if err != nil {
			return t.fail("getting pull requests by query", err), nil
		}
		for _, pr := range page {
			prs = append(prs, obj("number", iv(pr.Number), "title", sv(pr.Title), "user", login(pr.User),
				"created_at", iso(pr.CreatedAt), "updated_at", iso(pr.UpdatedAt), "state", sv(pr.State), "url", sv(pr.HTMLURL)))
			if len(prs) >= limit {
				break
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return t.indent(prs), nil
}

func (t *tools) listIssues(ctx context.Context, a listIssuesArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	page, perPage := or(a.Page, 1), or(a.PerPage, 20)
	if perPage < 1 {
		return errObject("per_page must be a positive number of issues"), nil
	}
	// agno walks every issue, drops pull requests, then pages itself.
	var all []*gh.Issue
	opts := &gh.IssueListByRepoOptions{State: or(a.State, "open"), ListOptions: gh.ListOptions{PerPage: 100}}
	for range t.maxPages {
		issues, resp, err := t.c.Issues.ListByRepo(ctx, owner, name, opts)
		if err != nil {
			return t.fail("listing issues", err), nil
		}
		for _, is := range issues {
			if is.PullRequestLinks == nil {
				all = append(all, is)
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.ListOptions.Page = resp.NextPage
	}
	total := len(all)
	pages := (total + perPage - 1) / perPage
	if page < 1 {
		page = 1
	} else if page > pages && pages > 0 {
		page = pages
	}
	list := []any{}
	for i := (page - 1) * perPage; i < min(page*perPage, total); i++ {
		is := all[i]
		list = append(list, obj("number", iv(is.Number), "title", sv(is.Title), "user", login(is.User),
			"created_at", iso(is.CreatedAt), "state", sv(is.State), "url", sv(is.HTMLURL)))
	}
	meta := obj("current_page", page, "per_page", perPage, "total_items", total, "total_pages", pages)
	return t.indent(obj("data", list, "meta", meta)), nil
}

func (t *tools) getIssue(ctx context.Context, a issueArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	is, _, err := t.c.Issues.Get(ctx, owner, name, a.IssueNumber)
	if err != nil {
		return t.fail("getting issue", err), nil
	}
	assignees, labels := []any{}, []any{}
	for _, u := range is.Assignees {
		assignees = append(assignees, login(u))
	}
	for _, l := range is.Labels {
		labels = append(labels, sv(l.Name))
	}
	return t.indent(obj("number", iv(is.Number), "title", sv(is.Title), "body", sv(is.Body), "user", login(is.User),
		"state", sv(is.State), "created_at", iso(is.CreatedAt), "updated_at", iso(is.UpdatedAt), "url", sv(is.HTMLURL),
		"assignees", assignees, "labels", labels)), nil
}

func (t *tools) commentOnIssue(ctx context.Context, a commentArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	c, _, err := t.c.Issues.CreateComment(ctx, owner, name, a.IssueNumber, &gh.IssueComment{Body: &a.CommentBody})
	if err != nil {
		return t.fail("commenting on issue", err), nil
	}
	return t.indent(obj("id", i64(c.ID), "body", sv(c.Body), "user", login(c.User), "created_at", iso(c.CreatedAt), "url", sv(c.HTMLURL))), nil
}

func (t *tools) contents(ctx context.Context, repoName, path string, ref *string) (*gh.RepositoryContent, []*gh.RepositoryContent, error) {
	owner, name, err := splitRepo(repoName)
	if err != nil {
		return nil, nil, err
	}
	var opts *gh.RepositoryContentGetOptions
	if ref != nil {
		opts = &gh.RepositoryContentGetOptions{Ref: *ref}
	}
	file, dir, _, err := t.c.Repositories.GetContents(ctx, owner, name, path, opts)
	return file, dir, err
}

const binaryNote = "Binary file (content not displayed)"

// decoded is agno's text of a file: UTF-8 without NUL and with at most
// 200 non-printable characters among the first 1000, else binaryNote.
func decoded(f *gh.RepositoryContent) string {
	s, err := f.GetContent()
	if err != nil || !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return binaryNote
	}
	odd, n := 0, 0
	for _, r := range s {
		if n == 1000 {
			break
		}
		n++
		if r < 32 || r > 126 {
			odd++
		}
	}
	if odd > 200 {
		return binaryNote
	}
	return s
}

func (t *tools) getFileContent(ctx context.Context, a fileArgs) (string, error) {
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	f, dir, err := t.contents(ctx, a.RepoName, a.Path, a.Ref)
	if err != nil {
		return t.fail("getting file content", err), nil
	}
	if f == nil && dir != nil {
		return errObject(a.Path + " is a directory, not a file"), nil
	}
	return t.indent(obj("name", sv(f.Name), "path", sv(f.Path), "sha", sv(f.SHA), "size", iv(f.Size), "type", sv(f.Type),
		"url", sv(f.HTMLURL), "content", decoded(f))), nil
}

func (t *tools) getDirectoryContent(ctx context.Context, a dirArgs) (string, error) {
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	f, dir, err := t.contents(ctx, a.RepoName, a.Path, a.Ref)
	if err != nil {
		return t.fail("getting directory contents", err), nil
	}
	if f != nil {
		return errObject(a.Path + " is a file, not a directory"), nil
	}
	// Directories first, then by name without case, as agno sorts.
	sort.SliceStable(dir, func(i, j int) bool {
		di, dj := dir[i].GetType() != "dir", dir[j].GetType() != "dir"
		if di != dj {
			return !di
		}
		return strings.ToLower(dir[i].GetName()) < strings.ToLower(dir[j].GetName())
	})
	items := []any{}
	for _, c := range dir {
		items = append(items, obj("name", sv(c.Name), "path", sv(c.Path), "type", sv(c.Type), "size", iv(c.Size),
			"sha", sv(c.SHA), "url", sv(c.HTMLURL), "download_url", sv(c.DownloadURL)))
	}
	return t.indent(items), nil
}
