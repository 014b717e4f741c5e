package app

// warmSpecs derives the schemas of the session's tools on another goroutine. A tool
// derives its schema by reflection on first use, and the first request declares
// them all: a few milliseconds that would fall between the prompt and the request,
// while the rest of the session's set-up runs beside them here. Close waits for it.
func (a *App) warmSpecs() {
	a.specsWarm.Add(1)
	go func() {
		defer a.specsWarm.Done()
		for _, t := range a.reg.All() {
			t.Spec()
		}
	}()
}
