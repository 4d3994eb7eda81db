import sys; print("stub", sys.argv)
