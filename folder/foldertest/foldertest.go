// Package foldertest writes results folders from raw bytes, for the fuzz
// targets of the packages that read them (verify, cmd/hammer): the bytes
// of each record file and of the manifest, optionally sealed with the
// digests of the record files so that a folder is consistent and its
// verdict is reached by the checks, not by its integrity.
package foldertest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
)

// Files are the files Write writes, in the order of its files argument:
// the manifest, then the record files.
func Files() []string {
	return []string{folder.ManifestFile, folder.HistoryFile, folder.LedgerFile, folder.SectorsFile, folder.FaultsFile}
}

// Read returns the bytes of each of Files in the results folder dir,
// nil for a file it does not hold.
func Read(dir string) ([][]byte, error) {
	out := make([][]byte, len(Files()))
	for i, name := range Files() {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// Write writes files, the bytes of each of Files, into dir. With seal,
// a manifest that is a JSON object gets, in place of its own, the
// number of JSON values and the SHA-256 of each record file, which is
// what the folder's record files hold when each line is a record.
func Write(dir string, files [][]byte, seal bool) error {
	if len(files) != len(Files()) {
		return errors.New("foldertest: want the bytes of every file of Files")
	}
	if seal {
		files = append([][]byte{sealed(files)}, files[1:]...)
	}
	for i, name := range Files() {
		if err := os.WriteFile(filepath.Join(dir, name), files[i], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// sealed returns the manifest files[0] with the digests of the record
// files files[1:]; the manifest as it is when it is no JSON object.
func sealed(files [][]byte) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(files[0], &m); err != nil || m == nil {
		return files[0]
	}
	digests := map[string]history.FileDigest{}
	for i, name := range Files()[1:] {
		b := files[i+1]
		sum := sha256.Sum256(b)
		digests[name] = history.FileDigest{Records: values(b), SHA256: hex.EncodeToString(sum[:])}
	}
	var err error
	if m["files"], err = json.Marshal(digests); err != nil {
		return files[0]
	}
	b, err := json.Marshal(m)
	if err != nil {
		return files[0]
	}
	return b
}

// values counts the JSON values at the start of b, up to the first that
// does not parse.
func values(b []byte) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	n := 0
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return n
		}
		n++
	}
}
