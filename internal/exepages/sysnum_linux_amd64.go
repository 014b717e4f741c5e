package exepages

const sysUserfaultfd = 323 // SYS_USERFAULTFD
