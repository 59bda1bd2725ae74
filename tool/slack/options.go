package slack

import (
	"errors"
	"time"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/serviceapi"
)

// ToolkitName is agno's toolkit name, as agents list it in tools.
const ToolkitName = "slack"

// Options are the keys of [toolkits.slack], agno's SlackTools arguments
// and Toolkit keywords, plus the endpoint and the bounds.
type Options struct {
	Token                   string `toml:"token"`
	Markdown                bool   `toml:"markdown"`
	EnableSendMessage       bool   `toml:"enable_send_message"`
	EnableSendMessageThread bool   `toml:"enable_send_message_thread"`
	EnableListChannels      bool   `toml:"enable_list_channels"`
	EnableGetChannelHistory bool   `toml:"enable_get_channel_history"`
	EnableUploadFile        bool   `toml:"enable_upload_file"`
	EnableDownloadFile      bool   `toml:"enable_download_file"`
	EnableSearchWorkspace   bool   `toml:"enable_search_workspace"`
	MaxFileSize             int64  `toml:"max_file_size"`
	SaveDownloads           bool   `toml:"save_downloads"`
	OutputDirectory         string `toml:"output_directory"`

	EnableSearchMessages      bool     `toml:"enable_search_messages"`
	EnableGetThread           bool     `toml:"enable_get_thread"`
	EnableListUsers           bool     `toml:"enable_list_users"`
	EnableGetUserInfo         bool     `toml:"enable_get_user_info"`
	EnableGetChannelInfo      bool     `toml:"enable_get_channel_info"`
	All                       bool     `toml:"all"`
	ThreadMessageLimit        int      `toml:"thread_message_limit"`
	APIURL                    string   `toml:"api_url"`
	TimeoutSeconds            float64  `toml:"timeout_seconds"`
	MaxResponseBytes          int      `toml:"max_response_bytes"`
	Instructions              string   `toml:"instructions"`
	AddInstructions           *bool    `toml:"add_instructions"`
	RequiresConfirmationTools []string `toml:"requires_confirmation_tools"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "send messages and thread replies, list channels, read history, threads, users and channel details over the Slack Web API (agno's SlackTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{Markdown: true, EnableSendMessage: true, EnableSendMessageThread: true, EnableListChannels: true,
				EnableGetChannelHistory: true, EnableUploadFile: true, EnableDownloadFile: true, ThreadMessageLimit: 20, MaxFileSize: 1 << 30}
		},
		Check: func(env tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			if o.MaxFileSize <= 0 {
				errs = append(errs, tool.OptionErrorf("max_file_size", "max_file_size = %d: use a positive number of bytes (default 1073741824, 1 GiB)", o.MaxFileSize))
			}
			// output_directory implies save_downloads, as in agno; saving
			// without one uses the config file's directory (agno's cwd).
			if o.OutputDirectory != "" || o.SaveDownloads {
				o.OutputDirectory = tool.ResolvePath(env.Dir, o.OutputDirectory)
				if o.OutputDirectory == "" {
					o.OutputDirectory = env.Dir
				}
			}
			if o.ThreadMessageLimit < 1 {
				errs = append(errs, tool.OptionErrorf("thread_message_limit", "thread_message_limit = %d: use a positive number of messages (default 20)", o.ThreadMessageLimit))
			}
			errs = append(errs, serviceapi.CheckCommon("", o.TimeoutSeconds, o.MaxResponseBytes))
			if o.APIURL != "" {
				if serviceapi.CheckCommon(o.APIURL, 0, 0) != nil {
					errs = append(errs, tool.OptionErrorf("api_url", "api_url = %q is not an http(s) URL: write it like %q", o.APIURL, DefaultAPIURL))
				}
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			markdown := o.Markdown
			return New(Config{
				Token: o.Token, Markdown: &markdown,
				EnableSendMessage: o.EnableSendMessage, EnableSendMessageThread: o.EnableSendMessageThread,
				EnableListChannels: o.EnableListChannels, EnableGetChannelHistory: o.EnableGetChannelHistory,
				EnableSearchMessages: o.EnableSearchMessages, EnableSearchWorkspace: o.EnableSearchWorkspace, EnableGetThread: o.EnableGetThread, EnableListUsers: o.EnableListUsers,
				EnableGetUserInfo: o.EnableGetUserInfo, EnableGetChannelInfo: o.EnableGetChannelInfo, All: o.All,
				EnableUploadFile: o.EnableUploadFile, EnableDownloadFile: o.EnableDownloadFile, MaxFileSize: o.MaxFileSize, OutputDirectory: o.OutputDirectory,
				ThreadMessageLimit: o.ThreadMessageLimit, APIURL: o.APIURL, HTTPClient: env.HTTPClient,
				Timeout: time.Duration(o.TimeoutSeconds * float64(time.Second)), MaxResponseBytes: o.MaxResponseBytes,
				Instructions: o.Instructions, AddInstructions: o.AddInstructions,
				RequiresConfirmation: o.RequiresConfirmationTools, Logger: env.Logger,
			})
		},
	})
}
