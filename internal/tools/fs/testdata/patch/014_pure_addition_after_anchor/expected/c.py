class A:
    x = 1
    pass

class B:
    pass
