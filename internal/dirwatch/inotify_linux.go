package dirwatch

import (
	"bytes"
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// inotify is the Linux queue: one non-blocking inotify instance.
type inotify struct {
	fd  int
	buf []byte
}

// folderEvents are the changes of a folder's entries a cache of their contents needs.
const folderEvents = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE |
	unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_ONLYDIR

func openQueue() (queue, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &inotify{fd: fd, buf: make([]byte, 64<<10)}, nil
}

func (q *inotify) add(folder string) (int, error) {
	w, err := unix.InotifyAddWatch(q.fd, folder, folderEvents)
	return w, err
}

func (q *inotify) read(emit func(watch int, name string, gone bool)) (overflow bool, err error) {
	for {
		n, err := unix.Read(q.fd, q.buf)
		if errors.Is(err, unix.EAGAIN) {
			return overflow, nil
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return overflow, err
		}
		if n <= 0 {
			return overflow, nil
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&q.buf[off]))
			end := off + unix.SizeofInotifyEvent + int(ev.Len)
			if end > n {
				return true, nil // (the kernel writes whole events; a cut one is taken as lost ones)
			}
			name := q.buf[off+unix.SizeofInotifyEvent : end]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off = end
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				overflow = true
			case ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED|unix.IN_UNMOUNT) != 0:
				if ev.Mask&unix.IN_MOVE_SELF != 0 {
					// The folder lives on under another name: its watch would report
					// entries under the old one.
					_, _ = unix.InotifyRmWatch(q.fd, uint32(ev.Wd))
				}
				emit(int(ev.Wd), "", true)
			case len(name) > 0:
				emit(int(ev.Wd), string(name), false)
			}
		}
	}
}

func (q *inotify) close() error { return unix.Close(q.fd) }
