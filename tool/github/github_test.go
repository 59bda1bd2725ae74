package github

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agno-go/agno/netguard"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/tooltest"
)

const testToken = "ghp_testtoken"

// fakeGitHub serves the REST endpoints the toolkit calls under an
// Enterprise-style root (/api/v3/), with the response examples of
// GitHub's REST reference:
// https://docs.github.com/en/rest/search/search#search-repositories,
// https://docs.github.com/en/rest/repos/repos#list-repositories-for-the-authenticated-user,
// https://docs.github.com/en/rest/repos/repos#get-a-repository,
// https://docs.github.com/en/rest/pulls/pulls (get, list, list files,
// check if merged: 204 or 404),
// https://docs.github.com/en/rest/issues/issues (create, get, list for a
// repository; pull requests carry "pull_request"),
// https://docs.github.com/en/rest/issues/comments#create-an-issue-comment,
// https://docs.github.com/en/rest/repos/contents#get-repository-content
// (a file object with base64 content, or an array for a directory), and
// pagination by the Link header,
// https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api.
// Errors are {"message", "documentation_url", "status"}.
type fakeGitHub struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []string
	body map[string]any // the last JSON body sent
}

const user = `{"login": "octocat", "id": 1, "type": "User", "site_admin": false}`

func (f *fakeGitHub) handle(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.reqs = append(f.reqs, r.Method+" "+r.URL.RequestURI())
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		f.body = nil
		_ = json.Unmarshal(b, &f.body)
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if r.Header.Get("Authorization") != "Bearer "+testToken {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest", "status": "401"}`))
		return
	}
	p := strings.TrimPrefix(r.URL.Path, "/api/v3")
	q := r.URL.Query()
	notFound := func() {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message": "Not Found", "documentation_url": "https://docs.github.com/rest/repos/repos#get-a-repository", "status": "404"}`))
	}
	next := func(page string) {
		u := *r.URL
		v := u.Query()
		v.Set("page", page)
		u.RawQuery = v.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, r.Host, u.RequestURI()))
	}
	switch {
	case p == "/search/repositories" && !strings.Contains("stars forks help-wanted-issues updated", q.Get("sort")):
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = w.Write([]byte(`{"message": "Validation Failed", "errors": [{"resource": "Search", "field": "sort", "code": "invalid"}], "documentation_url": "https://docs.github.com/rest/search/search#search-repositories", "status": "422"}`))
	case (p == "/search/code" || p == "/search/issues") && strings.HasPrefix(q.Get("q"), "bad"):
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = w.Write([]byte(`{"message": "Validation Failed", "errors": [{"message": "The search is longer than 256 characters.", "resource": "Search", "field": "q", "code": "invalid"}], "documentation_url": "https://docs.github.com/v3/search/", "status": "422"}`))
	case p == "/search/code" && q.Get("page") == "2":
		_, _ = w.Write([]byte(`{"total_count": 1, "incomplete_results": false, "items": []}`))
	case p == "/search/code":
		_, _ = w.Write([]byte(`{"total_count": 1, "incomplete_results": false, "items": [{"name": "classes.js", "path": "src/attributes/classes.js", "sha": "d7212f9dee2dcc18f084d7df8f417b80846ded5a", "url": "https://api.github.com/repositories/167174/contents/src/attributes/classes.js?ref=825ac37", "git_url": "https://api.github.com/repositories/167174/git/blobs/d7212f9dee2dcc18f084d7df8f417b80846ded5a", "html_url": "https://github.com/jquery/jquery/blob/825ac37/src/attributes/classes.js", "repository": {"id": 167174, "name": "jquery", "full_name": "jquery/jquery", "owner": {"login": "jquery"}}, "score": 1.0}]}`))
	case p == "/search/issues":
		_, _ = w.Write([]byte(`{"total_count": 280, "incomplete_results": false, "items": [
			{"url": "https://api.github.com/repos/batterseapower/pinyin-toolkit/issues/132", "repository_url": "https://api.github.com/repos/batterseapower/pinyin-toolkit", "html_url": "https://github.com/batterseapower/pinyin-toolkit/issues/132", "number": 132, "title": "Line Number Indexes Beyond 20 Not Displayed", "user": {"login": "Nick3C"}, "labels": [{"name": "bug"}], "state": "open", "comments": 15, "created_at": "2009-07-12T20:10:41Z", "updated_at": "2009-07-19T09:23:43Z", "score": 1.0},
			{"repository_url": "https://api.github.com/repos/octocat/Hello-World", "html_url": "https://github.com/octocat/Hello-World/pull/2", "number": 2, "title": "A PR", "user": ` + user + `, "labels": [], "state": "closed", "comments": 0, "created_at": "2011-01-26T19:01:12Z", "updated_at": "2011-01-26T19:01:12Z", "pull_request": {"url": "https://api.github.com/repos/octocat/Hello-World/pulls/2"}}
		]}`))
	case p == "/search/repositories":
		_, _ = w.Write([]byte(`{"total_count": 40, "incomplete_results": false, "items": [
			{"id": 3081286, "name": "Tetris", "full_name": "dtrupenn/Tetris", "owner": ` + user + `, "private": false, "html_url": "https://github.com/dtrupenn/Tetris", "description": "A C implementation of Tetris using Pennsim through LC4", "fork": false, "stargazers_count": 1, "watchers_count": 1, "forks_count": 0, "language": "Assembly", "score": 1.0},
			{"id": 2, "full_name": "octocat/Hello-World", "html_url": "https://github.com/octocat/Hello-World", "description": null, "stargazers_count": 80, "forks_count": 9, "language": null}
		]}`))
	case p == "/user/repos" && r.Method == http.MethodPost, p == "/orgs/acme/repos" && r.Method == http.MethodPost:
		if strings.Contains(fmt.Sprint(f.body), "name:taken") {
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = w.Write([]byte(`{"message": "Repository creation failed.", "errors": [{"resource": "Repository", "code": "custom", "field": "name", "message": "name already exists on this account"}], "documentation_url": "https://docs.github.com/rest/repos/repos#create-a-repository-for-the-authenticated-user", "status": "422"}`))
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id": 1296270, "name": "Hello-World", "full_name": "` + strings.TrimPrefix(strings.TrimSuffix(p, "/repos"), "/orgs/") + `/Hello-World", "private": true, "html_url": "https://github.com/octocat/Hello-World", "description": "This is your first repo!"}`))
	case p == "/user/repos":
		if q.Get("page") == "" {
			next("2")
			_, _ = w.Write([]byte(`[{"id": 1, "full_name": "octocat/Hello-World"}]`))
			return
		}
		_, _ = w.Write([]byte(`[{"id": 2, "full_name": "octocat/Spoon-Knife"}]`))
	case p == "/repos/octocat/Hello-World" && r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case p == "/repos/octocat/Hello-World/pulls/1347/commits":
		_, _ = w.Write([]byte(`[{"sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e", "commit": {"author": {"name": "Monalisa Octocat", "email": "support@github.com", "date": "2011-04-14T16:00:49Z"}, "message": "Fix all the bugs"}, "html_url": "https://github.com/octocat/Hello-World/commit/6dcb09b5b57875f334f61aebed695e2e4193db5e"},
			{"sha": "7638417", "commit": {"message": "No author"}, "html_url": "https://github.com/octocat/Hello-World/commit/7638417"}]`))
	case p == "/repos/octocat/Hello-World":
		_, _ = w.Write([]byte(`{"id": 1296269, "name": "Hello-World", "full_name": "octocat/Hello-World", "owner": ` + user + `, "html_url": "https://github.com/octocat/Hello-World", "description": "This your first repo! ☺", "language": null, "forks_count": 9, "stargazers_count": 80, "open_issues_count": 0, "default_branch": "master", "license": {"key": "mit", "name": "MIT License", "spdx_id": "MIT"}, "homepage": "", "size": 108, "watchers_count": 80, "topics": ["octocat", "api"], "private": false, "archived": false, "created_at": "2011-01-26T19:01:12Z", "updated_at": "2011-01-26T19:14:43Z", "pushed_at": "2011-01-26T19:06:43Z"}`))
	case p == "/repos/octocat/Hello-World/pulls" && r.Method == http.MethodPost:
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"number": 1348, "state": "open", "title": "Amazing new feature", "body": "Please pull these awesome changes in!", "user": ` + user + `, "created_at": "2011-01-26T19:01:12Z", "html_url": "https://github.com/octocat/Hello-World/pull/1348", "mergeable": null, "draft": true, "head": {"ref": "new-topic", "sha": "6dcb09b"}, "base": {"ref": "master", "sha": "6dcb09b"}}`))
	case p == "/repos/octocat/Hello-World/pulls/1347/requested_reviewers" && r.Method == http.MethodPost:
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"number": 1347, "requested_reviewers": [` + user + `], "requested_teams": []}`))
	case p == "/repos/octocat/Hello-World/contents/notes.txt" && r.Method == http.MethodPut:
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"content": {"name": "notes.txt", "path": "notes.txt", "sha": "95b966ae1c166bd92f8ae7d1c313e738c731dfc3", "size": 9, "html_url": "https://github.com/octocat/Hello-World/blob/master/notes.txt", "type": "file"}, "commit": {"sha": "7638417db6d59f3c431d3e1f261cc637155684cd", "node_id": "x", "url": "https://api.github.com/repos/octocat/Hello-World/git/commits/7638417", "html_url": "https://github.com/octocat/Hello-World/git/commit/7638417db6d59f3c431d3e1f261cc637155684cd", "message": "my commit message", "author": {"name": "Monalisa Octocat", "email": "octocat@github.com", "date": "2014-11-07T22:01:45Z"}}}`))
	case p == "/repos/octocat/Hello-World/contents/README.md" && r.Method == http.MethodDelete:
		_, _ = w.Write([]byte(`{"content": null, "commit": {"sha": "7638417db6d59f3c431d3e1f261cc637155684cd", "node_id": "x", "url": "https://api.github.com/repos/octocat/Hello-World/git/commits/7638417", "html_url": "https://github.com/octocat/Hello-World/git/commit/7638417db6d59f3c431d3e1f261cc637155684cd", "message": "my commit message", "author": {"name": "Monalisa Octocat", "email": "octocat@github.com", "date": "2014-11-07T22:01:45Z"}}}`))
	case p == "/repos/octocat/Hello-World/git/ref/heads/master":
		_, _ = w.Write([]byte(`{"ref": "refs/heads/master", "node_id": "MDM6UmVm", "url": "https://api.github.com/repos/octocat/Hello-World/git/refs/heads/master", "object": {"type": "commit", "sha": "aa218f56b14c9653891f9e74264a383fa43fefbd", "url": "https://api.github.com/repos/octocat/Hello-World/git/commits/aa218f56"}}`))
	case p == "/repos/octocat/Hello-World/git/refs" && r.Method == http.MethodPost:
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"ref": "refs/heads/feature-a", "node_id": "MDM6UmVm2", "url": "https://api.github.com/repos/octocat/Hello-World/git/refs/heads/feature-a", "object": {"type": "commit", "sha": "aa218f56b14c9653891f9e74264a383fa43fefbd", "url": "https://api.github.com/repos/octocat/Hello-World/git/commits/aa218f56"}}`))
	case p == "/repos/octocat/Hello-World/pulls/1347/comments" && r.Method == http.MethodGet:
		_, _ = w.Write([]byte(`[` + fmt.Sprintf(`{"id": %s, "path": "file1.txt", "position": 1, "commit_id": "6dcb09b5b57875f334f61aebed695e2e4193db5e", "user": `+user+`, "body": "%s", "created_at": "%s", "updated_at": "%s", "html_url": "https://github.com/octocat/Hello-World/pull/1#discussion-diff-%s"}`, "10", "Great stuff!", "2011-04-14T16:00:49Z", "2011-04-14T16:00:49Z", "10") + `]`))
	case p == "/repos/octocat/Hello-World/pulls/1347/comments" && r.Method == http.MethodPost:
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(fmt.Sprintf(`{"id": %s, "path": "file1.txt", "position": 1, "commit_id": "6dcb09b5b57875f334f61aebed695e2e4193db5e", "user": `+user+`, "body": "%s", "created_at": "%s", "updated_at": "%s", "html_url": "https://github.com/octocat/Hello-World/pull/1#discussion-diff-%s"}`, "11", "Nice change", "2011-04-15T16:00:49Z", "2011-04-15T16:00:49Z", "11")))
	case p == "/repos/octocat/Hello-World/pulls/comments/10" && r.Method == http.MethodPatch:
		_, _ = w.Write([]byte(fmt.Sprintf(`{"id": %s, "path": "file1.txt", "position": 1, "commit_id": "6dcb09b5b57875f334f61aebed695e2e4193db5e", "user": `+user+`, "body": "%s", "created_at": "%s", "updated_at": "%s", "html_url": "https://github.com/octocat/Hello-World/pull/1#discussion-diff-%s"}`, "10", "Edited", "2011-04-14T16:00:49Z", "2011-04-16T09:00:00Z", "10")))
	case p == "/repos/octocat/Hello-World/pulls" && q.Get("per_page") == "1":
		u := *r.URL
		v := u.Query()
		v.Set("page", "57")
		u.RawQuery = v.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="last"`, r.Host, u.RequestURI()))
		_, _ = w.Write([]byte(`[{"number": 1347, "state": "open", "title": "x", "user": ` + user + `}]`))
	case p == "/repos/octocat/Hello-World/pulls/1347":
		_, _ = w.Write([]byte(`{"number": 1347, "state": "open", "title": "Amazing new feature", "user": ` + user + `, "body": "Please pull these awesome changes in!", "created_at": "2011-01-26T19:01:12Z", "updated_at": "2011-01-26T19:01:12Z", "html_url": "https://github.com/octocat/Hello-World/pull/1347", "mergeable": true, "merged": false, "comments": 3, "base": {"ref": "master"}, "head": {"ref": "new-topic"}}`))
	case p == "/repos/octocat/Hello-World/pulls/1347/merge":
		w.WriteHeader(http.StatusNotFound)
	case p == "/repos/octocat/Hello-World/pulls/1347/files":
		_, _ = w.Write([]byte(`[{"sha": "bbcd538c8e72b8c175046e27cc8f907076331401", "filename": "file1.txt", "status": "added", "additions": 103, "deletions": 21, "changes": 124, "blob_url": "https://github.com/octocat/Hello-World/blob/6dcb09b/file1.txt", "raw_url": "https://github.com/octocat/Hello-World/raw/6dcb09b/file1.txt", "patch": "@@ -132,7 +132,7 @@ module Test @@ -1000,7 +1000,7 @@ module Test"}]`))
	case p == "/repos/octocat/Hello-World/pulls":
		_, _ = w.Write([]byte(`[{"number": 1347, "state": "open", "title": "Amazing new feature", "user": ` + user + `, "created_at": "2011-01-26T19:01:12Z", "updated_at": "2011-01-27T08:00:00Z", "html_url": "https://github.com/octocat/Hello-World/pull/1347"},
			{"number": 1348, "state": "open", "title": "Second", "user": ` + user + `, "created_at": "2011-01-28T19:01:12Z", "updated_at": "2011-01-28T19:01:12Z", "merged_at": "2011-01-29T01:01:12Z", "html_url": "https://github.com/octocat/Hello-World/pull/1348"}]`))
	case p == "/repos/octocat/Hello-World/issues" && r.Method == http.MethodPost:
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id": 1, "number": 1347, "state": "open", "title": "Found a bug", "body": "I'm having a problem with this.", "user": ` + user + `, "html_url": "https://github.com/octocat/Hello-World/issues/1347", "created_at": "2011-04-22T13:33:48Z"}`))
	case p == "/repos/octocat/Hello-World/issues":
		if q.Get("page") == "" {
			next("2")
			_, _ = w.Write([]byte(`[{"number": 1, "title": "Bug one", "state": "open", "user": ` + user + `, "html_url": "https://github.com/octocat/Hello-World/issues/1", "created_at": "2011-04-22T13:33:48Z"},
				{"number": 2, "title": "A pull request", "state": "open", "user": ` + user + `, "html_url": "https://github.com/octocat/Hello-World/pull/2", "created_at": "2011-04-22T13:33:48Z", "pull_request": {"url": "https://api.github.com/repos/octocat/Hello-World/pulls/2"}}]`))
			return
		}
		_, _ = w.Write([]byte(`[{"number": 3, "title": "Bug three", "state": "open", "user": ` + user + `, "html_url": "https://github.com/octocat/Hello-World/issues/3", "created_at": "2011-04-23T13:33:48Z"}]`))
	case p == "/repos/octocat/Hello-World/contributors":
		_, _ = w.Write([]byte(`[{"login": "octocat", "id": 1, "html_url": "https://github.com/octocat", "type": "User", "contributions": 32}]`))
	case p == "/repos/octocat/Hello-World/branches":
		_, _ = w.Write([]byte(`[{"name": "master", "commit": {"sha": "c5b97d5ae6c19d5c5df71a34c7fbeeda2479ccbc"}, "protected": true}, {"name": "develop", "commit": {"sha": "abc"}, "protected": false}]`))
	case p == "/repos/octocat/Hello-World/languages":
		_, _ = w.Write([]byte(`{"C": 78769, "Python": 7769, "Assembly": 7769}`))
	case p == "/repos/octocat/Hello-World/issues/1347/comments" && r.Method == http.MethodGet:
		_, _ = w.Write([]byte(`[{"id": 1, "html_url": "https://github.com/octocat/Hello-World/issues/1347#issuecomment-1", "body": "Me too", "user": ` + user + `, "created_at": "2011-04-14T16:00:49Z"}]`))
	case p == "/repos/octocat/Hello-World/issues/1347" && r.Method == http.MethodPatch:
		_, _ = w.Write([]byte(`{"id": 1, "number": 1347, "state": "open", "title": "Found a bug", "user": ` + user + `}`))
	case p == "/repos/octocat/Hello-World/issues/1347":
		_, _ = w.Write([]byte(`{"id": 1, "number": 1347, "state": "open", "title": "Found a bug", "body": null, "user": ` + user + `, "labels": [{"id": 208045946, "name": "bug", "color": "f29513"}], "assignees": [` + user + `], "html_url": "https://github.com/octocat/Hello-World/issues/1347", "created_at": "2011-04-22T13:33:48Z", "updated_at": "2011-04-22T13:33:48Z"}`))
	case p == "/repos/octocat/Hello-World/issues/1347/comments" && r.Method == http.MethodPost:
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id": 1, "html_url": "https://github.com/octocat/Hello-World/issues/1347#issuecomment-1", "body": "Me too", "user": ` + user + `, "created_at": "2011-04-14T16:00:49Z", "updated_at": "2011-04-14T16:00:49Z"}`))
	case p == "/repos/octocat/Hello-World/contents/README.md":
		content := base64.StdEncoding.EncodeToString([]byte("# Hello World\n"))
		_, _ = w.Write([]byte(`{"type": "file", "encoding": "base64", "size": 14, "name": "README.md", "path": "README.md", "content": "` + content + `", "sha": "3d21ec53a331a6f037a91c368710b99387d012c1", "html_url": "https://github.com/octocat/Hello-World/blob/master/README.md", "download_url": "https://raw.githubusercontent.com/octocat/Hello-World/master/README.md"}`))
	case p == "/repos/octocat/Hello-World/contents/logo.png":
		content := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
		_, _ = w.Write([]byte(`{"type": "file", "encoding": "base64", "size": 10, "name": "logo.png", "path": "logo.png", "content": "` + content + `", "sha": "abc", "html_url": "https://github.com/octocat/Hello-World/blob/master/logo.png"}`))
	case p == "/repos/octocat/Hello-World/contents/huge.txt":
		_, _ = w.Write([]byte(`{"type": "file", "encoding": "base64", "name": "huge.txt", "path": "huge.txt", "content": "` + strings.Repeat("QUFB", 3000) + `"}`))
	case p == "/repos/octocat/Hello-World/contents/" || p == "/repos/octocat/Hello-World/contents":
		_, _ = w.Write([]byte(`[{"type": "file", "size": 14, "name": "README.md", "path": "README.md", "sha": "3d21ec5", "html_url": "https://github.com/octocat/Hello-World/blob/master/README.md", "download_url": "https://raw.githubusercontent.com/octocat/Hello-World/master/README.md"},
			{"type": "dir", "size": 0, "name": "src", "path": "src", "sha": "a84d885", "html_url": "https://github.com/octocat/Hello-World/tree/master/src", "download_url": null},
			{"type": "file", "size": 1, "name": "LICENSE", "path": "LICENSE", "sha": "b1", "html_url": "https://github.com/octocat/Hello-World/blob/master/LICENSE", "download_url": "https://raw.githubusercontent.com/octocat/Hello-World/master/LICENSE"}]`))
	default:
		notFound()
	}
}

func newFake(t *testing.T) *fakeGitHub {
	f := &fakeGitHub{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.handle))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGitHub) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.reqs...)
}

func localClient(t *testing.T) *http.Client {
	t.Helper()
	g, err := netguard.New(netguard.Policy{Allow: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Client(0)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func TestConformance(t *testing.T) {
	// agno's 39 functions, in its order.
	functions := []tooltest.Function{
		{Name: "search_repositories", Args: []string{"query", "sort", "order", "page", "per_page"}},
		{Name: "list_repositories"},
		{Name: "get_repository", Args: []string{"repo_name"}},
		{Name: "get_pull_request", Args: []string{"repo_name", "pr_number"}},
		{Name: "get_pull_request_changes", Args: []string{"repo_name", "pr_number"}},
		{Name: "create_issue", Args: []string{"repo_name", "title", "body"}},
		{Name: "create_repository", Args: []string{"name", "private", "description", "auto_init", "organization"}},
		{Name: "delete_repository", Args: []string{"repo_name"}},
		{Name: "list_branches", Args: []string{"repo_name"}},
		{Name: "get_repository_languages", Args: []string{"repo_name"}},
		{Name: "get_pull_request_count", Args: []string{"repo_name", "state", "author", "base", "head"}},
		{Name: "get_repository_stars", Args: []string{"repo_name"}},
		{Name: "get_pull_requests", Args: []string{"repo_name", "state", "sort", "direction", "limit"}},
		{Name: "get_pull_request_comments", Args: []string{"repo_name", "pr_number", "include_issue_comments"}},
		{Name: "create_pull_request_comment", Args: []string{"repo_name", "pr_number", "body", "commit_id", "path", "position"}},
		{Name: "edit_pull_request_comment", Args: []string{"repo_name", "comment_id", "body"}},
		{Name: "get_pull_request_with_details", Args: []string{"repo_name", "pr_number"}},
		{Name: "get_repository_with_stats", Args: []string{"repo_name"}},
		{Name: "list_issues", Args: []string{"repo_name", "state", "page", "per_page"}},
		{Name: "get_issue", Args: []string{"repo_name", "issue_number"}},
		{Name: "comment_on_issue", Args: []string{"repo_name", "issue_number", "comment_body"}},
		{Name: "close_issue", Args: []string{"repo_name", "issue_number"}},
		{Name: "reopen_issue", Args: []string{"repo_name", "issue_number"}},
		{Name: "assign_issue", Args: []string{"repo_name", "issue_number", "assignees"}},
		{Name: "label_issue", Args: []string{"repo_name", "issue_number", "labels"}},
		{Name: "list_issue_comments", Args: []string{"repo_name", "issue_number"}},
		{Name: "edit_issue", Args: []string{"repo_name", "issue_number", "title", "body"}},
		{Name: "create_pull_request", Args: []string{"repo_name", "title", "body", "head", "base", "draft", "maintainer_can_modify"}},
		{Name: "create_file", Args: []string{"repo_name", "path", "content", "message", "branch"}},
		{Name: "get_file_content", Args: []string{"repo_name", "path", "ref"}},
		{Name: "update_file", Args: []string{"repo_name", "path", "content", "message", "sha", "branch"}},
		{Name: "delete_file", Args: []string{"repo_name", "path", "message", "sha", "branch"}},
		{Name: "get_directory_content", Args: []string{"repo_name", "path", "ref"}},
		{Name: "get_branch_content", Args: []string{"repo_name", "branch"}},
		{Name: "create_branch", Args: []string{"repo_name", "branch_name", "source_branch"}},
		{Name: "set_default_branch", Args: []string{"repo_name", "branch_name"}},
		{Name: "search_code", Args: []string{"query", "language", "repo", "user", "path", "filename"}},
		{Name: "search_issues_and_prs", Args: []string{"query", "state", "type_filter", "repo", "user", "label", "sort", "order", "page", "per_page"}},
		{Name: "create_review_request", Args: []string{"repo_name", "pr_number", "reviewers", "team_reviewers"}},
	}
	gone := `"repo_name": "octocat/Gone"`
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   ToolkitName,
		Name:      "github",
		Functions: functions,
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			f := newFake(t)
			env.HTTPClient = localClient(t)
			t.Setenv(TokenEnv, testToken)
			return `base_url = "` + f.srv.URL + `/api/v3"` + "\nmax_response_bytes = 4096"
		},
		Failures: map[string][]tooltest.Call{
			"search_repositories":           {{Args: `{"query": "tetris", "sort": "nonsense"}`, Want: `{"error": "422 {\"message\": \"Validation Failed\"`}},
			"list_repositories":             {{Args: `{}`, Want: `"octocat/Spoon-Knife"`}},
			"get_repository":                {{Args: `{` + gone + `}`, Want: `{"error": "404 {\"message\": \"Not Found\"`}},
			"get_pull_request":              {{Args: `{` + gone + `, "pr_number": 1}`, Want: `"error": "404`}},
			"get_pull_request_changes":      {{Args: `{` + gone + `, "pr_number": 1}`, Want: `"error": "404`}},
			"create_issue":                  {{Args: `{` + gone + `, "title": "x"}`, Want: `"error": "404`}},
			"get_pull_requests":             {{Args: `{` + gone + `}`, Want: `"error": "404`}},
			"list_issues":                   {{Args: `{` + gone + `}`, Want: `"error": "404`}},
			"get_issue":                     {{Args: `{"repo_name": "no-slash", "issue_number": 1}`, Want: `is not the repository's full name`}},
			"comment_on_issue":              {{Args: `{` + gone + `, "issue_number": 1, "comment_body": "x"}`, Want: `"error": "404`}},
			"list_branches":                 {{Args: `{` + gone + `}`, Want: `"error": "404`}},
			"get_repository_languages":      {{Args: `{` + gone + `}`, Want: `"error": "404`}},
			"get_repository_stars":          {{Args: `{` + gone + `}`, Want: `"error": "404`}},
			"close_issue":                   {{Args: `{` + gone + `, "issue_number": 1}`, Want: `"error": "404`}},
			"reopen_issue":                  {{Args: `{` + gone + `, "issue_number": 1}`, Want: `"error": "404`}},
			"assign_issue":                  {{Args: `{` + gone + `, "issue_number": 1, "assignees": ["a"]}`, Want: `"error": "404`}},
			"label_issue":                   {{Args: `{` + gone + `, "issue_number": 1, "labels": ["bug"]}`, Want: `"error": "404`}},
			"list_issue_comments":           {{Args: `{` + gone + `, "issue_number": 1}`, Want: `"error": "404`}},
			"edit_issue":                    {{Args: `{` + gone + `, "issue_number": 1, "title": "t"}`, Want: `"error": "404`}},
			"create_pull_request":           {{Args: `{` + gone + `, "title": "t", "body": "b", "head": "h", "base": "main"}`, Want: `"error": "404`}},
			"create_file":                   {{Args: `{` + gone + `, "path": "a.txt", "content": "x", "message": "m"}`, Want: `"error": "404`}},
			"update_file":                   {{Args: `{` + gone + `, "path": "a.txt", "content": "x", "message": "m", "sha": "s"}`, Want: `"error": "404`}},
			"delete_file":                   {{Args: `{` + gone + `, "path": "a.txt", "message": "m", "sha": "s"}`, Want: `"error": "404`}},
			"get_branch_content":            {{Args: `{` + gone + `}`, Want: `"error": "404`}},
			"create_branch":                 {{Args: `{` + gone + `, "branch_name": "b"}`, Want: `"error": "404`}},
			"set_default_branch":            {{Args: `{"repo_name": "octocat/Hello-World", "branch_name": "nope"}`, Want: `{"error": "Branch 'nope' does not exist"}`}},
			"create_review_request":         {{Args: `{` + gone + `, "pr_number": 1, "reviewers": ["a"]}`, Want: `"error": "404`}},
			"search_code":                   {{Args: `{"query": "bad"}`, Want: `{"error": "422 {\"message\": \"Validation Failed\"`}},
			"search_issues_and_prs":         {{Args: `{"query": "bad"}`, Want: `{"error": "422 {\"message\": \"Validation Failed\"`}},
			"delete_repository":             {{Args: `{` + gone + `}`, Want: `"error": "404`}},
			"get_pull_request_with_details": {{Args: `{` + gone + `, "pr_number": 1}`, Want: `"error": "404`}},
			"get_repository_with_stats":     {{Args: `{` + gone + `}`, Want: `"error": "404`}},
			"create_repository":             {{Args: `{"name": "taken"}`, Want: `{"error": "422 {\"message\": \"Repository creation failed.\"`}},
			"get_pull_request_count":        {{Args: `{` + gone + `}`, Want: `"error": "404`}},
			"get_pull_request_comments":     {{Args: `{` + gone + `, "pr_number": 1}`, Want: `"error": "404`}},
			"create_pull_request_comment":   {{Args: `{` + gone + `, "pr_number": 1, "body": "b", "commit_id": "c", "path": "p", "position": 1}`, Want: `"error": "404`}},
			"edit_pull_request_comment":     {{Args: `{"repo_name": "octocat/Hello-World", "comment_id": 99, "body": "b"}`, Want: `Could not find comment #99 in repository: octocat/Hello-World`}},
			"get_file_content":              {{Args: `{"repo_name": "octocat/Hello-World", "path": ""}`, Want: `{"error": " is a directory, not a file"}`}},
			"get_directory_content":         {{Args: `{"repo_name": "octocat/Hello-World", "path": "README.md"}`, Want: `{"error": "README.md is a file, not a directory"}`}},
		},
		Oversized: &tooltest.Oversized{Function: "get_file_content", Call: tooltest.Call{Args: `{"repo_name": "octocat/Hello-World", "path": "huge.txt"}`, Want: "max_response_bytes"}, Option: "max_response_bytes", Limit: 4096},
		BadOptions: []tooltest.BadOption{
			{Table: `base_url = "github.example.com"`, Key: "base_url"},
			{Table: "timeout_seconds = -1", Key: "timeout_seconds"},
			{Table: "max_response_bytes = -1", Key: "max_response_bytes"},
			{Table: "max_pages = -1", Key: "max_pages"},
		},
	})
}

func build(t *testing.T, f *fakeGitHub, token string) map[string]*tool.Function {
	t.Helper()
	tk, err := New(Config{AccessToken: token, BaseURL: f.srv.URL + "/api/v3/", HTTPClient: localClient(t)})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	m := map[string]*tool.Function{}
	for _, fn := range fns {
		m[fn.Name] = fn
	}
	return m
}

func call(t *testing.T, fn *tool.Function, args string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatal(err)
	}
	res, err := fn.Invoke(context.Background(), nil, m)
	if err != nil {
		t.Fatalf("%s: %v", fn.Name, err)
	}
	return res.Content
}

func TestRepositories(t *testing.T) {
	f := newFake(t)
	fns := build(t, f, testToken)
	out := call(t, fns["search_repositories"], `{"query": "tetris language:assembly", "per_page": 1, "page": 2}`)
	want := "[\n  {\n    \"full_name\": \"dtrupenn/Tetris\",\n    \"description\": \"A C implementation of Tetris using Pennsim through LC4\",\n    \"url\": \"https://github.com/dtrupenn/Tetris\",\n    \"stars\": 1,\n    \"forks\": 0,\n    \"language\": \"Assembly\"\n  }\n]"
	if out != want {
		t.Errorf("search_repositories:\n%s\nwant\n%s", out, want)
	}
	if r := f.requests()[0]; r != "GET /api/v3/search/repositories?order=desc&page=2&per_page=1&q=tetris+language%3Aassembly&sort=stars" {
		t.Errorf("search request = %s", r)
	}
	if out := call(t, fns["list_repositories"], `{}`); out != "[\n  \"octocat/Hello-World\",\n  \"octocat/Spoon-Knife\"\n]" {
		t.Errorf("list_repositories (two pages): %s", out)
	}
	out = call(t, fns["get_repository"], `{"repo_name": "octocat/Hello-World"}`)
	want = "{\n  \"name\": \"octocat/Hello-World\",\n  \"description\": \"This your first repo! \\u263a\",\n  \"url\": \"https://github.com/octocat/Hello-World\",\n  \"stars\": 80,\n  \"forks\": 9,\n  \"open_issues\": 0,\n  \"language\": null,\n  \"license\": \"MIT License\",\n  \"default_branch\": \"master\"\n}"
	if out != want {
		t.Errorf("get_repository:\n%s\nwant\n%s", out, want)
	}
}

func TestPullRequests(t *testing.T) {
	f := newFake(t)
	fns := build(t, f, testToken)
	out := call(t, fns["get_pull_request"], `{"repo_name": "octocat/Hello-World", "pr_number": 1347}`)
	want := "{\n  \"number\": 1347,\n  \"title\": \"Amazing new feature\",\n  \"user\": \"octocat\",\n  \"body\": \"Please pull these awesome changes in!\",\n  \"created_at\": \"2011-01-26T19:01:12+00:00\",\n  \"updated_at\": \"2011-01-26T19:01:12+00:00\",\n  \"state\": \"open\",\n  \"merged\": false,\n  \"mergeable\": true,\n  \"url\": \"https://github.com/octocat/Hello-World/pull/1347\"\n}"
	if out != want {
		t.Errorf("get_pull_request:\n%s\nwant\n%s", out, want)
	}
	out = call(t, fns["get_pull_request_changes"], `{"repo_name": "octocat/Hello-World", "pr_number": 1347}`)
	if !strings.HasPrefix(out, "[\n  {\n    \"filename\": \"file1.txt\",\n    \"status\": \"added\",\n    \"additions\": 103,") || !strings.Contains(out, `"patch": "@@ -132,7`) {
		t.Errorf("get_pull_request_changes: %s", out)
	}
	out = call(t, fns["get_pull_requests"], `{"repo_name": "octocat/Hello-World", "state": "all", "limit": 1}`)
	if strings.Count(out, `"number"`) != 1 || !strings.Contains(out, `"updated_at": "2011-01-27T08:00:00+00:00"`) {
		t.Errorf("get_pull_requests limit 1: %s", out)
	}
	reqs := f.requests()
	if r := reqs[len(reqs)-1]; r != "GET /api/v3/repos/octocat/Hello-World/pulls?direction=desc&per_page=100&sort=created&state=all" {
		t.Errorf("pulls request = %s", r)
	}
}

func TestIssues(t *testing.T) {
	f := newFake(t)
	fns := build(t, f, testToken)
	out := call(t, fns["create_issue"], `{"repo_name": "octocat/Hello-World", "title": "Found a bug", "body": "I'm having a problem with this."}`)
	if !strings.HasPrefix(out, "{\n  \"id\": 1,\n  \"number\": 1347,\n  \"title\": \"Found a bug\",") || !strings.Contains(out, `"created_at": "2011-04-22T13:33:48+00:00",`) {
		t.Errorf("create_issue: %s", out)
	}
	f.mu.Lock()
	sent := fmt.Sprint(f.body)
	f.mu.Unlock()
	if sent != "map[body:I'm having a problem with this. title:Found a bug]" {
		t.Errorf("create_issue sent %s", sent)
	}
	// Two pages of issues, the pull request among them dropped; page 5
	// of 2 is clamped to the last, as agno does.
	out = call(t, fns["list_issues"], `{"repo_name": "octocat/Hello-World", "page": 5, "per_page": 1}`)
	if !strings.Contains(out, `"title": "Bug three"`) || strings.Contains(out, "A pull request") ||
		!strings.HasSuffix(out, "\"meta\": {\n    \"current_page\": 2,\n    \"per_page\": 1,\n    \"total_items\": 2,\n    \"total_pages\": 2\n  }\n}") {
		t.Errorf("list_issues: %s", out)
	}
	out = call(t, fns["get_issue"], `{"repo_name": "octocat/Hello-World", "issue_number": 1347}`)
	if !strings.Contains(out, "\"body\": null,") || !strings.Contains(out, "\"assignees\": [\n    \"octocat\"\n  ],\n  \"labels\": [\n    \"bug\"\n  ]\n}") {
		t.Errorf("get_issue: %s", out)
	}
	out = call(t, fns["comment_on_issue"], `{"repo_name": "octocat/Hello-World", "issue_number": 1347, "comment_body": "Me too"}`)
	if out != "{\n  \"id\": 1,\n  \"body\": \"Me too\",\n  \"user\": \"octocat\",\n  \"created_at\": \"2011-04-14T16:00:49+00:00\",\n  \"url\": \"https://github.com/octocat/Hello-World/issues/1347#issuecomment-1\"\n}" {
		t.Errorf("comment_on_issue: %s", out)
	}
}

func TestContents(t *testing.T) {
	f := newFake(t)
	fns := build(t, f, testToken)
	out := call(t, fns["get_file_content"], `{"repo_name": "octocat/Hello-World", "path": "README.md", "ref": "master"}`)
	if !strings.HasSuffix(out, "\"url\": \"https://github.com/octocat/Hello-World/blob/master/README.md\",\n  \"content\": \"# Hello World\\n\"\n}") {
		t.Errorf("get_file_content: %s", out)
	}
	reqs := f.requests()
	if r := reqs[len(reqs)-1]; r != "GET /api/v3/repos/octocat/Hello-World/contents/README.md?ref=master" {
		t.Errorf("contents request = %s", r)
	}
	if out := call(t, fns["get_file_content"], `{"repo_name": "octocat/Hello-World", "path": "logo.png"}`); !strings.Contains(out, `"content": "Binary file (content not displayed)"`) {
		t.Errorf("binary file: %s", out)
	}
	out = call(t, fns["get_directory_content"], `{"repo_name": "octocat/Hello-World", "path": ""}`)
	if i, j, k := strings.Index(out, `"name": "src"`), strings.Index(out, `"name": "LICENSE"`), strings.Index(out, `"name": "README.md"`); i < 0 || !(i < j && j < k) || !strings.Contains(out, `"download_url": null`) {
		t.Errorf("get_directory_content: want src, LICENSE, README.md: %s", out)
	}
}

func TestErrors(t *testing.T) {
	f := newFake(t)
	out := call(t, build(t, f, "ghp_wrong")["get_repository"], `{"repo_name": "octocat/Hello-World"}`)
	if out != `{"error": "401 {\"message\": \"Bad credentials\", \"documentation_url\": \"https://docs.github.com/rest\"}"}` {
		t.Errorf("bad token: %s", out)
	}
	t.Setenv(TokenEnv, "")
	if _, err := New(Config{}); err != ErrMissingToken {
		t.Errorf("no token: %v, want agno's %q", err, ErrMissingToken)
	}
	// The host's client is copied, never wrapped in place.
	hc := localClient(t)
	before := hc.Transport
	if _, err := New(Config{AccessToken: "x", HTTPClient: hc}); err != nil || hc.Transport != before {
		t.Errorf("New changed the host's client: %v", err)
	}
}

func TestMoreRepositoryAndIssueTools(t *testing.T) {
	f := newFake(t)
	fns := build(t, f, testToken)
	const repo = `"repo_name": "octocat/Hello-World"`
	for _, c := range []struct{ fn, args, want, sent string }{
		{"list_branches", `{` + repo + `}`, "[\n  \"master\",\n  \"develop\"\n]", ""},
		{"get_repository_languages", `{` + repo + `}`, "{\n  \"C\": 78769,\n  \"Assembly\": 7769,\n  \"Python\": 7769\n}", ""},
		{"get_repository_stars", `{` + repo + `}`, "{\n  \"stars\": 80\n}", ""},
		{"close_issue", `{` + repo + `, "issue_number": 1347}`, "{\n  \"message\": \"Issue #1347 closed.\"\n}", "map[state:closed]"},
		{"reopen_issue", `{` + repo + `, "issue_number": 1347}`, "{\n  \"message\": \"Issue #1347 reopened.\"\n}", "map[state:open]"},
		{"assign_issue", `{` + repo + `, "issue_number": 1347, "assignees": ["octocat", "hubot"]}`, "{\n  \"message\": \"Issue #1347 assigned to ['octocat', 'hubot'].\"\n}", "map[assignees:[octocat hubot]]"},
		{"label_issue", `{` + repo + `, "issue_number": 1347, "labels": ["bug"]}`, "{\n  \"message\": \"Labels ['bug'] added to issue #1347.\"\n}", "map[labels:[bug]]"},
		{"edit_issue", `{` + repo + `, "issue_number": 1347, "title": "New title"}`, "{\n  \"message\": \"Issue #1347 updated.\"\n}", "map[title:New title]"},
		{"list_issue_comments", `{` + repo + `, "issue_number": 1347}`, "[\n  {\n    \"id\": 1,\n    \"user\": \"octocat\",\n    \"body\": \"Me too\",\n    \"created_at\": \"2011-04-14T16:00:49+00:00\",\n    \"url\": \"https://github.com/octocat/Hello-World/issues/1347#issuecomment-1\"\n  }\n]", ""},
	} {
		if out := call(t, fns[c.fn], c.args); out != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.fn, out, c.want)
		}
		if c.sent != "" {
			f.mu.Lock()
			sent := fmt.Sprint(f.body)
			f.mu.Unlock()
			if sent != c.sent {
				t.Errorf("%s sent %s, want %s", c.fn, sent, c.sent)
			}
		}
	}
}

func TestWritesAndBranches(t *testing.T) {
	f := newFake(t)
	fns := build(t, f, testToken)
	const repo = `"repo_name": "octocat/Hello-World"`
	sent := func() string {
		f.mu.Lock()
		defer f.mu.Unlock()
		return fmt.Sprint(f.body)
	}
	commit := "\"commit\": {\n    \"sha\": \"7638417db6d59f3c431d3e1f261cc637155684cd\",\n    \"message\": \"my commit message\",\n    \"url\": \"https://github.com/octocat/Hello-World/git/commit/7638417db6d59f3c431d3e1f261cc637155684cd\"\n  }\n}"
	for _, c := range []struct{ fn, args, want, sent string }{
		{"create_pull_request", `{` + repo + `, "title": "Amazing new feature", "body": "Please pull", "head": "new-topic", "base": "master", "draft": true}`,
			"{\n  \"number\": 1348,\n  \"title\": \"Amazing new feature\",\n  \"body\": \"Please pull these awesome changes in!\",\n  \"user\": \"octocat\",\n  \"state\": \"open\",\n  \"created_at\": \"2011-01-26T19:01:12+00:00\",\n  \"html_url\": \"https://github.com/octocat/Hello-World/pull/1348\",\n  \"base\": \"master\",\n  \"head\": \"new-topic\",\n  \"mergeable\": null\n}",
			"map[base:master body:Please pull draft:true head:new-topic maintainer_can_modify:true title:Amazing new feature]"},
		{"create_review_request", `{` + repo + `, "pr_number": 1347, "reviewers": ["octocat"]}`,
			"{\n  \"message\": \"Review request created for PR #1347\",\n  \"requested_reviewers\": [\n    \"octocat\"\n  ],\n  \"requested_team_reviewers\": []\n}", "map[reviewers:[octocat]]"},
		{"create_file", `{` + repo + `, "path": "notes.txt", "content": "hello ☕", "message": "my commit message", "branch": "master"}`,
			"{\n  \"path\": \"notes.txt\",\n  \"sha\": \"95b966ae1c166bd92f8ae7d1c313e738c731dfc3\",\n  \"url\": \"https://github.com/octocat/Hello-World/blob/master/notes.txt\",\n  " + commit,
			"map[branch:master content:aGVsbG8g4piV message:my commit message]"},
		{"update_file", `{` + repo + `, "path": "notes.txt", "content": "v2", "message": "my commit message", "sha": "95b966a"}`,
			"{\n  \"path\": \"notes.txt\",\n  \"sha\": \"95b966ae1c166bd92f8ae7d1c313e738c731dfc3\",\n  \"url\": \"https://github.com/octocat/Hello-World/blob/master/notes.txt\",\n  " + commit,
			"map[content:djI= message:my commit message sha:95b966a]"},
		{"delete_file", `{` + repo + `, "path": "README.md", "message": "my commit message", "sha": "3d21ec5"}`,
			"{\n  \"message\": \"File README.md deleted successfully\",\n  " + commit,
			// go-github writes "content": null into a delete, which GitHub ignores.
			"map[content:<nil> message:my commit message sha:3d21ec5]"},
		{"create_branch", `{` + repo + `, "branch_name": "feature-a"}`,
			"{\n  \"name\": \"feature-a\",\n  \"sha\": \"aa218f56b14c9653891f9e74264a383fa43fefbd\",\n  \"url\": \"https://github.com/octocat/Hello-World/tree/feature-a\"\n}",
			"map[ref:refs/heads/feature-a sha:aa218f56b14c9653891f9e74264a383fa43fefbd]"},
		{"set_default_branch", `{` + repo + `, "branch_name": "develop"}`,
			"{\n  \"message\": \"Default branch changed to develop\",\n  \"repository\": \"octocat/Hello-World\",\n  \"default_branch\": \"develop\"\n}", "map[default_branch:develop]"},
	} {
		if out := call(t, fns[c.fn], c.args); out != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.fn, out, c.want)
		}
		if got := sent(); got != c.sent {
			t.Errorf("%s sent %s, want %s", c.fn, got, c.sent)
		}
	}
	out := call(t, fns["get_branch_content"], `{`+repo+`}`)
	reqs := f.requests()
	if !strings.HasPrefix(out, "[\n  {\n    \"name\": \"src\"") || !strings.HasSuffix(reqs[len(reqs)-1], "?ref=main") {
		t.Errorf("get_branch_content: %s (%s)", out, reqs[len(reqs)-1])
	}
}

func TestPullRequestCommentsAndCounts(t *testing.T) {
	f := newFake(t)
	fns := build(t, f, testToken)
	const repo = `"repo_name": "octocat/Hello-World"`
	out := call(t, fns["get_pull_request_comments"], `{`+repo+`, "pr_number": 1347}`)
	// The issue comment (2011-04-14T16:00:49, listed second) and the
	// review comment at the same time keep their order: newest first, stable.
	if i, j := strings.Index(out, `"type": "review_comment"`), strings.Index(out, `"type": "issue_comment"`); i < 0 || j < 0 || i > j ||
		!strings.Contains(out, "\"position\": 1,\n    \"commit_id\": \"6dcb09b5b57875f334f61aebed695e2e4193db5e\",") {
		t.Errorf("get_pull_request_comments: %s", out)
	}
	out = call(t, fns["get_pull_request_comments"], `{`+repo+`, "pr_number": 1347, "include_issue_comments": false}`)
	if strings.Contains(out, "issue_comment") {
		t.Errorf("include_issue_comments false: %s", out)
	}
	out = call(t, fns["create_pull_request_comment"], `{`+repo+`, "pr_number": 1347, "body": "Nice change", "commit_id": "6dcb09b5b57875f334f61aebed695e2e4193db5e", "path": "file1.txt", "position": 1}`)
	if !strings.HasPrefix(out, "{\n  \"id\": 11,\n  \"body\": \"Nice change\",") {
		t.Errorf("create_pull_request_comment: %s", out)
	}
	f.mu.Lock()
	sent := fmt.Sprint(f.body)
	f.mu.Unlock()
	if sent != "map[body:Nice change commit_id:6dcb09b5b57875f334f61aebed695e2e4193db5e path:file1.txt position:1]" {
		t.Errorf("create_pull_request_comment sent %s", sent)
	}
	out = call(t, fns["edit_pull_request_comment"], `{`+repo+`, "comment_id": 10, "body": "Edited"}`)
	if !strings.Contains(out, "\"body\": \"Edited\",\n  \"user\": \"octocat\",\n  \"updated_at\": \"2011-04-16T09:00:00+00:00\",") {
		t.Errorf("edit_pull_request_comment: %s", out)
	}
	if out := call(t, fns["get_pull_request_count"], `{`+repo+`}`); out != "{\n  \"count\": 57\n}" {
		t.Errorf("get_pull_request_count: %s", out)
	}
	if out := call(t, fns["get_pull_request_count"], `{`+repo+`, "state": "open", "author": "octocat"}`); out != "{\n  \"count\": 2\n}" {
		t.Errorf("get_pull_request_count by author: %s", out)
	}
	out = call(t, fns["create_repository"], `{"name": "Hello-World", "private": true, "organization": "acme"}`)
	if out != "{\n  \"name\": \"acme/Hello-World\",\n  \"url\": \"https://github.com/octocat/Hello-World\",\n  \"private\": true,\n  \"description\": \"This is your first repo!\"\n}" {
		t.Errorf("create_repository: %s", out)
	}
	f.mu.Lock()
	sent = fmt.Sprint(f.body)
	f.mu.Unlock()
	if sent != "map[auto_init:false description: name:Hello-World private:true]" {
		t.Errorf("create_repository sent %s", sent)
	}
}

func TestSearchCodeAndIssues(t *testing.T) {
	f := newFake(t)
	fns := build(t, f, testToken)
	out := call(t, fns["search_code"], `{"query": "addClass", "language": "js", "repo": "jquery/jquery"}`)
	want := "{\n  \"query\": \"addClass language:js repo:jquery/jquery\",\n  \"total_count\": 1,\n  \"results_count\": 1,\n  \"results\": [\n    {\n      \"repository\": \"jquery/jquery\",\n      \"path\": \"src/attributes/classes.js\",\n      \"name\": \"classes.js\",\n      \"sha\": \"d7212f9dee2dcc18f084d7df8f417b80846ded5a\",\n      \"html_url\": \"https://github.com/jquery/jquery/blob/825ac37/src/attributes/classes.js\",\n      \"git_url\": \"https://api.github.com/repositories/167174/git/blobs/d7212f9dee2dcc18f084d7df8f417b80846ded5a\",\n      \"score\": 1.0\n    }\n  ]\n}"
	if out != want {
		t.Errorf("search_code:\n%s\nwant\n%s", out, want)
	}
	out = call(t, fns["search_issues_and_prs"], `{"query": "windows", "state": "open", "type_filter": "issue", "label": "bug", "per_page": 1}`)
	if !strings.HasPrefix(out, "{\n  \"query\": \"windows state:open is:issue label:bug\",\n  \"total_count\": 280,\n  \"page\": 1,\n  \"per_page\": 1,\n  \"results_count\": 1,") ||
		!strings.Contains(out, "\"repository\": \"batterseapower/pinyin-toolkit\",") || !strings.Contains(out, "\"is_pull_request\": false,\n      \"comments\": 15,") {
		t.Errorf("search_issues_and_prs: %s", out)
	}
	out = call(t, fns["search_issues_and_prs"], `{"query": "x"}`)
	if !strings.Contains(out, "\"is_pull_request\": true") {
		t.Errorf("a pull request in the results: %s", out)
	}
}

func TestDeleteRepositoryAndPullRequestDetails(t *testing.T) {
	f := newFake(t)
	fns := build(t, f, testToken)
	if out := call(t, fns["delete_repository"], `{"repo_name": "octocat/Hello-World"}`); out != "{\n  \"message\": \"Repository octocat/Hello-World deleted successfully\"\n}" {
		t.Errorf("delete_repository: %s", out)
	}
	if reqs := f.requests(); reqs[len(reqs)-1] != "DELETE /api/v3/repos/octocat/Hello-World" {
		t.Errorf("delete request = %s", reqs[len(reqs)-1])
	}
	out := call(t, fns["get_pull_request_with_details"], `{"repo_name": "octocat/Hello-World", "pr_number": 1347}`)
	for _, want := range []string{
		"\"merged\": false,\n  \"mergeable\": true,\n  \"additions\": null,",
		"\"comments_count\": {\n    \"review_comments\": 1,\n    \"issue_comments\": 1,\n    \"total\": 2\n  },",
		"\"author\": \"Monalisa Octocat\",\n      \"date\": \"2011-04-14T16:00:49+00:00\",",
		"\"message\": \"No author\",\n      \"author\": \"Unknown\",\n      \"date\": null,",
		"\"files_changed\": [\n    {\n      \"filename\": \"file1.txt\",",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("get_pull_request_with_details lacks %q:\n%s", want, out)
		}
	}
}

func TestRepositoryWithStats(t *testing.T) {
	f := newFake(t)
	out := call(t, build(t, f, testToken)["get_repository_with_stats"], `{"repo_name": "octocat/Hello-World"}`)
	for _, want := range []string{
		"{\n  \"id\": 1296269,\n  \"name\": \"Hello-World\",\n  \"full_name\": \"octocat/Hello-World\",\n  \"owner\": \"octocat\",",
		"\"homepage\": null,\n  \"language\": null,\n  \"created_at\": \"2011-01-26T19:01:12+00:00\",",
		"\"topics\": [\n    \"octocat\",\n    \"api\"\n  ],\n  \"license\": \"MIT License\",\n  \"private\": false,\n  \"archived\": false,",
		"\"languages\": {\n    \"C\": 78769,",
		"\"actual_open_issues\": 2,\n  \"open_pr_count\": 57,",
		// 1348 is not found by its own GET: skipped, as agno skips a PR that fails.
		"\"recent_open_prs\": [\n    {\n      \"number\": 1347,",
		"\"base\": \"master\",\n      \"head\": \"new-topic\",\n      \"comment_count\": 3\n    }\n  ],",
		"\"pr_metrics\": {\n    \"total_prs\": 2,\n    \"merged_prs\": 1,\n    \"acceptance_rate\": 50.0,\n    \"avg_time_to_merge\": 6.0\n  },",
		"\"contributors\": [\n    {\n      \"login\": \"octocat\",\n      \"contributions\": 32,",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("get_repository_with_stats lacks %q:\n%s", want, out)
		}
	}
}
