from autograder.judge.runner import main

main()
