package acp

import (
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/permission"
)

// The ids of gantry's config options.
const (
	optionMode  = "mode"
	optionModel = "model"
	optionVibe  = "vibe"
)

// modeInfo names and describes the permission modes as session modes.
var modeInfo = []struct {
	mode        permission.Mode
	name, about string
}{
	{permission.ModeDefault, "Default", "Ask before changing files or running commands the rules do not allow"},
	{permission.ModeAcceptEdits, "Accept edits", "Change files without asking; ask before running commands"},
	{permission.ModePlan, "Plan", "Read and plan only; no file is changed and no command run"},
	{permission.ModeYolo, "Yolo", "Ask nothing; only deny rules still hold"},
}

func (s *session) modeState() *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(s.app.Mode())}
	for _, m := range modeInfo {
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(m.mode), Name: m.name, Description: sdk.Ptr(m.about)})
	}
	return st
}

// models lists the models the session can switch to: gantry's known models of the
// provider's family, and the current one.
func (s *session) models() []string {
	list := s.app.KnownModels() // as the terminal's /model offers them
	s.mu.Lock()
	current := s.model
	s.mu.Unlock()
	for _, m := range list {
		if m == current {
			return list
		}
	}
	return append([]string{current}, list...)
}

func (s *session) configOptions() []sdk.SessionConfigOption {
	var modes sdk.SessionConfigSelectOptionsUngrouped
	for _, m := range modeInfo {
		modes = append(modes, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m.mode), Name: m.name, Description: sdk.Ptr(m.about)})
	}
	var models sdk.SessionConfigSelectOptionsUngrouped
	for _, m := range s.models() {
		models = append(models, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m), Name: m})
	}
	s.mu.Lock()
	model := s.model
	s.mu.Unlock()
	mode := sdk.SessionConfigOptionCategoryMode
	modelCat := sdk.SessionConfigOptionCategoryModel
	return []sdk.SessionConfigOption{
		{Select: &sdk.SessionConfigOptionSelect{Id: optionMode, Name: "Mode", Type: "select", Category: &mode,
			Description:  sdk.Ptr("What gantry may do without asking"),
			CurrentValue: sdk.SessionConfigValueId(s.app.Mode()), Options: sdk.SessionConfigSelectOptions{Ungrouped: &modes}}},
		{Select: &sdk.SessionConfigOptionSelect{Id: optionModel, Name: "Model", Type: "select", Category: &modelCat,
			Description:  sdk.Ptr("The model the next turn uses"),
			CurrentValue: sdk.SessionConfigValueId(model), Options: sdk.SessionConfigSelectOptions{Ungrouped: &models}}},
		{Select: &sdk.SessionConfigOptionSelect{Id: optionVibe, Name: "Vibe", Type: "select",
			Description:  sdk.Ptr("Vibe mode: the model may start background workers, by tier"),
			CurrentValue: vibeValue(s.app.Vibe()), Options: sdk.SessionConfigSelectOptions{Ungrouped: &vibeChoices}}},
	}
}

var vibeChoices = sdk.SessionConfigSelectOptionsUngrouped{
	{Value: "off", Name: "Off", Description: sdk.Ptr("No background workers")},
	{Value: "on", Name: "On", Description: sdk.Ptr("The model may spawn, steer, wait for and stop background workers")},
}

func vibeValue(on bool) sdk.SessionConfigValueId {
	if on {
		return "on"
	}
	return "off"
}

// setMode switches the permission mode (the client asked: the ModeChanged that
// follows is not echoed back to it).
func (s *session) setMode(id string) error {
	m, err := permission.ParseMode(id)
	if err != nil {
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown mode %q: choose default, accept-edits, plan or yolo", id)})
	}
	s.mu.Lock()
	s.mode = m
	s.mu.Unlock()
	s.app.SetMode(m)
	return nil
}

func (s *session) setOption(id, value string) error {
	switch id {
	case optionMode:
		return s.setMode(value)
	case optionModel:
		for _, m := range s.models() {
			if m == value {
				s.mu.Lock()
				s.model = value
				s.mu.Unlock()
				return nil
			}
		}
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown model %q: choose one of %s", value, strings.Join(s.models(), ", "))})
	case optionVibe:
		switch value {
		case "on", "off":
			s.app.SetVibe(value == "on")
			return nil
		}
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("vibe is on or off, not %q", value)})
	}
	return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown config option %q: gantry has mode, model and vibe", id)})
}

// applyModel makes the chosen model the session's; it runs between turns.
func (s *session) applyModel() {
	s.mu.Lock()
	model := s.model
	s.mu.Unlock()
	s.app.SetModel(model) // nothing happens when it is the model already
}

// tellMode sends current_mode_update and config_option_update when the mode (now
// the session's, from a ModeChanged) is not the one the client was last told.
func (s *session) tellMode(now permission.Mode) {
	s.mu.Lock()
	changed := now != s.mode
	s.mode = now
	s.mu.Unlock()
	if !changed {
		return
	}
	s.send(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{SessionUpdate: "current_mode_update", CurrentModeId: sdk.SessionModeId(now)}})
	s.send(sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{SessionUpdate: "config_option_update", ConfigOptions: s.configOptions()}})
}
