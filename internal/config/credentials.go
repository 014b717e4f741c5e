package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/goccy/go-yaml"
)

// Credentials are the API keys stored by gantry's first-run setup, in
// credentials.yaml in UserDir. A key set in the environment wins over a stored one.
type Credentials struct {
	// AnthropicAPIKey is used when ANTHROPIC_API_KEY is not set.
	AnthropicAPIKey string `yaml:"anthropicApiKey,omitempty"`
	// OpenAIAPIKey is used when OPENAI_API_KEY is not set.
	OpenAIAPIKey string `yaml:"openaiApiKey,omitempty"`
}

// credentialsHeader opens every credentials file gantry writes.
const credentialsHeader = "# gantry's stored API keys, written by its setup. Keep this file private (chmod 600).\n"

// CredentialsPath returns the credentials file: credentials.yaml in UserDir.
func CredentialsPath() string {
	return filepath.Join(UserDir(), "credentials.yaml")
}

// LoadCredentials reads the credentials file. A missing file gives empty credentials.
// A file of a mode wider than 0600 (one that group or others may read, say) is
// refused, as is one that does not decode; the errors are one sentence and never
// quote the file, which holds secrets.
func LoadCredentials() (Credentials, error) {
	path := CredentialsPath()
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Credentials{}, nil
	}
	if err != nil {
		return Credentials{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Credentials{}, err
	}
	if !fi.Mode().IsRegular() {
		return Credentials{}, fmt.Errorf("the credentials file %s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&^0o600 != 0 && runtime.GOOS != "windows" {
		return Credentials{}, fmt.Errorf("the credentials file %s has mode %04o, but it holds API keys and must be 0600 or narrower: run chmod 600 %s", path, perm, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return Credentials{}, err
	}
	if len(data) > maxFileSize {
		return Credentials{}, fmt.Errorf("the credentials file %s is too large to be one", path)
	}
	var c Credentials
	if err := decodeCredentials(data, &c); err != nil {
		// The library's message quotes the file: say only where the problem is.
		return Credentials{}, fmt.Errorf("the credentials file %s cannot be read: it must be YAML with only the keys anthropicApiKey and openaiApiKey", path)
	}
	return c, nil
}

// decodeCredentials decodes data strictly into c, a panic of the YAML library
// being one more malformed file.
func decodeCredentials(data []byte, c *Credentials) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return yaml.UnmarshalWithOptions(data, c, yaml.Strict())
}

// SaveCredentials writes c to the credentials file, replacing it: a new file of
// mode 0600, renamed over the old one so that a reader never sees half a file, in a
// folder created with mode 0700 when missing. A symbolic link at the path is
// followed, so the file it points to is the one replaced.
func SaveCredentials(c Credentials) error {
	path := FollowLinks(CredentialsPath())
	data, err := yaml.Marshal(c)
	if err != nil {
		return err
	}
	if c == (Credentials{}) {
		data = nil // not "{}"
	}
	return WriteFileAtomic(path, append([]byte(credentialsHeader), data...), 0o600)
}

// FollowLinks returns the file a chain of symbolic links at path ends at, even one
// that does not exist yet; path itself when it is not a link. Writing there keeps a
// dotfiles manager's link a link.
func FollowLinks(path string) string {
	for range 40 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path
		}
		target, err := os.Readlink(path)
		if err != nil {
			return path
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return path
}

// WriteFileAtomic writes data to a temporary file of mode perm next to path, then
// renames it to path, so that a reader never sees half a file; the folder is created
// with mode 0700 when missing (the user's config folder holds the stored keys).
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
