// Package fakellm is a fake model server for tests and benchmarks. It listens on
// 127.0.0.1 only and speaks the real wire formats, streaming server-sent events
// with one flush per event:
//
//   - POST /v1/messages: the Anthropic Messages API (message_start,
//     content_block_start/delta/stop, message_delta, message_stop);
//   - POST /v1/responses: the OpenAI Responses API (response.created …
//     response.output_text.delta … response.function_call_arguments.delta/done …
//     response.completed);
//   - POST /v1/chat/completions: OpenAI Chat Completions chunks with tool_calls
//     deltas, finish_reason, a usage chunk when stream_options.include_usage is
//     set, and data: [DONE].
//
// The same paths without the /v1 prefix are served too. Each request takes the
// next Turn of the script; a Turn that injects a failure (Status) is used up like
// any other, so "429 then success" is two turns. When the script has run out the
// server answers the text "(script exhausted)". Text is streamed a few words per
// delta, tool-call arguments a few bytes per delta.
//
// A script can also be read from JSON with LoadScript, for serving from another
// program. The format is an object with a list of turns; every field of a turn is
// optional, and each part holds exactly one of text, thinking and tool_call:
//
//	{"turns": [
//	  {"parts": [
//	    {"thinking": "The user wants the module name."},
//	    {"text": "Let me look."},
//	    {"tool_call": {"id": "call_1", "name": "read", "input": {"path": "go.mod"}}}
//	  ]},
//	  {"parts": [
//	    {"tool_search": {"id": "srv_1", "query": "debugger"}},
//	    {"tool_found": {"id": "srv_1", "tools": ["debug"]}},
//	    {"tool_call": {"id": "call_2", "name": "debug", "input": {"action": "status"}}}
//	  ]},
//	  {"status": 429, "retry_after": "0"},
//	  {"parts": [{"text": "It is gantry."}], "cut_after": 4},
//	  {"parts": [{"text": "It is gantry."}],
//	   "usage": {"input_tokens": 1200, "output_tokens": 8, "cache_read_tokens": 1000}},
//	  {"parts": [{"text": "slow"}], "delay_ms": 50, "stop_reason": "max_tokens"},
//	  {"parts": [{"text": "never finished"}], "stream_error": "overloaded_error", "cut_after": 3}
//	]}
//
// The fields mirror Turn: status (HTTP status with an error body in the endpoint's
// format), retry_after (its Retry-After header, default "0"), cut_after (send that
// many events, then drop the connection), end_after (send that many events, then
// end the response cleanly but without its terminal event), stream_error (send an error event of that
// type in the stream), stall_after (send that many events, then hang until the
// client leaves), silent ("before_headers": send nothing, not even the status;
// "after_headers": the stream's headers and then nothing; both until the client
// leaves), delay_ms (pause before each event), pings_after (send that many events,
// then only keep-alives until the client leaves: Anthropic's ping events, SSE
// comments for the OpenAI formats), malformed (data sent as it is, unencoded, as
// the event after cut_after events, or after the first; the response then ends),
// stop_reason and usage
// (input_tokens, output_tokens, cache_read_tokens, cache_write_tokens; counts
// disjoint as in llm.Usage).
//
// A part may also be {"endless_text": "…"}: that text streamed again and again,
// never ending, until the client leaves.
//
// tool_search and tool_found are the API's own search over deferred tools and its
// result (Anthropic's server_tool_use and tool_search_tool_result blocks, the
// Responses API's tool_search_call and tool_search_output items); Chat Completions
// has no such thing and streams nothing for them.
//
// A test waits for a stalled response with Server.Stalled, which tells when the
// client has been sent all it will get, instead of sleeping.
package fakellm
