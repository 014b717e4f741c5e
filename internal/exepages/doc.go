// Package exepages keeps gantry's own executable from counting pages it never read as
// resident.
//
// When a process first reads a page of a file mapping, Linux maps the cached pages
// around it too — up to 64 KB, the kernel's fault_around_bytes — and counts each one
// as the process's resident memory. A session reads gantry's executable sparsely (a
// function here, a type descriptor there), so about half of what it had resident was
// pages of the file it never read (docs/benchmarks.md, "Where the resident size
// goes"). The kernel skips fault-around in a mapping registered with a userfaultfd for
// write-protect tracking (mm/memory.c: should_fault_around, uffd_disable_fault_around),
// and since Linux 6.7, with the asynchronous write-protect mode, any mapping may be
// registered. The package's init registers the executable's read-only mappings so.
// Nothing ever write-protects a page of them and nothing writes to them, so no fault
// reaches the userfaultfd: the registration changes only that each page is mapped when
// it is read, alone. Where the kernel refuses (older than 6.7, a seccomp profile that
// forbids userfaultfd, as container runtimes' may, an LSM), nothing changes and Err
// says why (gantry doctor shows it).
//
// It is a package of its own, importing only the standard library's first packages,
// so that Go initialises it, and registers the mappings, before most of gantry's
// hundreds of packages and their initialisation's reads: package initialisation runs
// in import-path order among the packages whose imports are done. It imports package
// nsinit, whose init turns a contained command's helper away first.
package exepages
