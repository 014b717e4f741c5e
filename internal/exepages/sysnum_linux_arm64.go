package exepages

const sysUserfaultfd = 282 // SYS_USERFAULTFD
