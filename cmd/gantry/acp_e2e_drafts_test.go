package main

// acpAsStarted is a call as the client knows it when it starts to run: its tool_call
// with the updates that came before in_progress (or its end) laid over it — the drafts
// of its arguments while the model wrote them, then the call as it starts.
func acpAsStarted(ups []map[string]any) map[string]any {
	out := map[string]any{}
	for _, u := range ups {
		if s, _ := u["status"].(string); s != "" && s != "pending" {
			break
		}
		for k, v := range u {
			if v != nil {
				out[k] = v
			}
		}
	}
	return out
}
