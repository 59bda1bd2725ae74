package agentos

import "github.com/agno-go/agno/agentos/schedulesapi"

// The Schedules route group lives in agentos/schedulesapi; these are the
// package's names for its configuration and answer shapes.

// SchedulerConfig configures the cron poller (agno's scheduler=True).
// The schedule routes work with a DB either way; the poller fires due
// schedules and serves POST /schedules/{id}/trigger.
type SchedulerConfig = schedulesapi.Config

// ScheduleResponse is agno's ScheduleResponse.
type ScheduleResponse = schedulesapi.ScheduleResponse

// ScheduleStateResponse is agno's answer to enable and disable.
type ScheduleStateResponse = schedulesapi.ScheduleStateResponse

// ScheduleRunResponse is agno's ScheduleRunResponse.
type ScheduleRunResponse = schedulesapi.ScheduleRunResponse

// SchedulePage is agno's PaginatedResponse[T] of the schedule routes.
type SchedulePage[T any] = schedulesapi.SchedulePage[T]
